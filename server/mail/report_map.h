// The map attached to report mails (turn reports, corrections, RESEND): the game after the
// report's turn (the state its next turn starts from), painted as a PNG by a MapPainter.
//
// The painter is injected (MailConfig::map_painter, NoticeMailer::set_map_painter) because the
// renderer (server/render/state_map.h: the web map through librsvg) sits above this module; the
// daemon and the command line set it. A report never waits for its map: when there is no
// painter, or loading or painting fails, or the PNG is too big, the report goes without it and
// the reason is logged (event=report_map_failed).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "server/app/services.h"
#include "server/mail/compose.h"
#include "storage/notice_store.h"

namespace adj::mail {

// A state document (to_json(GameState)) to PNG bytes. Called from the mail threads: must be
// safe to call from several threads at once.
using MapPainter = std::function<Result<std::string>(const Json& state)>;

// The largest map attached (a report with a bigger one goes without it): a map goes to every
// player every turn. At the mail's size (render::kMailMapLimits: at least 1,200 pixels wide) the
// bundled scenarios' maps weigh up to about 0.8 MB, base64 adds a third; the renderer draws a
// bigger map with fewer pixels to stay under (render::kMapPngBudget).
inline constexpr std::size_t kMaxMapAttachmentBytes = 1024u << 10;

// The attachment "map-turn-<turn>.png" (image/png) of `game` after `turn`; nullopt (logged,
// except for a null painter) as described above.
// `report` (a player's report JSON), when not null, is given to the painter with the state (as
// its "report" member) so that the map draws that player's moves and battles.
std::optional<MailAttachment> report_map(const MapPainter& painter, Services& services,
                                         const std::string& game, int turn,
                                         const Json* report = nullptr);

// Whether the map of `report` (a player's report JSON) draws arrows (render::arrows_from_report):
// it has a battle, an attack on the player, or a move or migration carried out. A report
// without any is mailed the plain map, painted once for all such players.
bool report_draws_arrows(const Json& report);

// The dedupe key of a correction notice (MailIngest::queue_corrections) and the turn read back
// from a notice with such a key (nullopt for any other notice).
std::string correction_key(const std::string& game, int turn, int run, const std::string& player);
std::optional<int> correction_turn(const Notice& n);

}  // namespace adj::mail
