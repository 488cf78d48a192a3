// The map attached to report mails (turn reports, corrections, RESEND): the game after the
// report's turn (the state its next turn starts from), painted as a PNG by a MapPainter.
//
// The painter is injected (MailConfig::map_painter, NoticeMailer::set_map_painter) because the
// renderer (server/render/state_map.h: the web map through librsvg) sits above this module; the
// daemon and the command line set it. It is asked once per game and turn for a prepared map,
// which then paints each player's. A report never waits for its map: when there is no painter,
// or loading or painting fails, or the PNG is too big, the report goes without it and the reason
// is logged (event=report_map_failed).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "server/app/services.h"
#include "server/mail/compose.h"
#include "storage/mail_store.h"
#include "storage/notice_store.h"

namespace adj::mail {

// The map of one game after one turn, prepared: the PNG of the map with the arrows of `report` (a
// player's report JSON), or the plain map for nullptr. It must draw no arrow but those of the
// report it is given (a player's moves are private to that player).
using PlayerMapPainter = std::function<Result<std::string>(const Json* report)>;
// Prepares the map of a state document (to_json(GameState)): the work done once per game and turn
// (render::map_painter: the state drawn and rasterised once; each player's PNG then adds only its
// arrows). Called from the mail threads: both functions must be safe to call from several
// threads at once.
using MapPainter = std::function<Result<PlayerMapPainter>(const Json& state)>;

// The largest map attached (a report with a bigger one goes without it): a map goes to every
// player every turn. In the full style, 1,200 pixels wide (render::kFullMailMapLimits), the
// bundled scenarios' maps weigh up to about 0.8 MB; the flat one (render::kMailMapLimits, the
// default) measured 23-100 KB (docs/performance.md); base64 adds a third. The renderer draws a
// bigger map with fewer pixels to stay under (render::kMapPngBudget).
inline constexpr std::size_t kMaxMapAttachmentBytes = 1024u << 10;

// How report mails carry their map (adjutant serve --mail-maps).
struct MapMail {
  // Whether a player's map draws that player's own moves and battles (--mail-maps player): a
  // PNG painted and stored per player. Off (--mail-maps game): every player of a game gets the
  // same map after the turn, painted once.
  bool arrows = false;
  // Where the plain map is stored once, as a part every mail of the turn names
  // (MailStore::put_mail_part); null: each mail holds its own copy. `now` stamps it.
  MailStore* parts = nullptr;
  UnixTime now = 0;
};

// The maps of `game` after `turn` (the state its next turn starts from) for its mails, each the
// attachment "map-turn-<turn>.png" (image/png). The state is loaded and the map prepared once, on
// the first map asked for; the plain map is painted (and stored) once.
// Thread-safety: one object per thread. Borrows `painter`, `services` and mail.parts, which must
// outlive it.
class ReportMaps {
 public:
  ReportMaps(const MapPainter& painter, Services& services, std::string game, int turn,
             MapMail mail = {})
      : painter_(painter), services_(services), game_(std::move(game)), turn_(turn), mail_(mail) {}

  // The map of a player's report: with its arrows when mail.arrows and
  // report_draws_arrows(*report), else (and for nullptr) the plain map, which names its stored
  // part when mail.parts is set (stored_part_key(); a part that could not be stored is logged
  // and the map goes as bytes). nullopt (logged, except for a null painter) when loading,
  // preparing or painting fails or the PNG is over kMaxMapAttachmentBytes; a failed preparation
  // is logged once and not tried again.
  std::optional<MailAttachment> for_report(const Json* report);

 private:
  std::optional<MailAttachment> paint(const Json* report);
  std::optional<MailAttachment> fail(const std::string& why) const;
  void store_part(MailAttachment& a) const;

  const MapPainter& painter_;
  Services& services_;
  std::string game_;
  int turn_;
  MapMail mail_;
  std::optional<PlayerMapPainter> prepared_;  // set once tried; null when it failed
  std::optional<std::optional<MailAttachment>> plain_;
};

// Whether the map of `report` (a player's report JSON) draws arrows (render::arrows_from_report):
// it has a battle, an attack on the player, or a move or migration carried out. A report
// without any is mailed the plain map, painted once for all such players.
bool report_draws_arrows(const Json& report);

// The dedupe key of a correction notice (MailIngest::queue_corrections) and the turn read back
// from a notice with such a key (nullopt for any other notice).
std::string correction_key(const std::string& game, int turn, int run, const std::string& player);
std::optional<int> correction_turn(const Notice& n);

}  // namespace adj::mail
