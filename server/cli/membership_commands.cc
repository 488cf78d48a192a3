// `adjutant signup open|list|approve|remove|start|invite`, `adjutant player address|replace` and
// `adjutant game create --signup`: the membership services (server/app/membership.h) on the
// command line. New secrets are never printed: they are queued for mailing (with a sign-in link
// when --base-url is given) and leave with `adjutant outbox send` or the daemon.
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "rules/game/scenario.h"
#include "server/app/admin.h"
#include "server/app/app_runtime.h"
#include "server/app/membership.h"
#include "server/app/secrets.h"
#include "server/app/time_text.h"
#include "server/cli/commands.h"
#include "server/mail/mail_ingest.h"
#include "server/render/state_map.h"

namespace adj::cli {
namespace {

constexpr const char* kActor = "gm:cli";

// kExitRefused for a request the game refuses (InvalidArgument, FailedPrecondition,
// AlreadyExists), else kExitError.
int membership_fail(const Status& s) {
  return fail(s, s.code() == StatusCode::kInvalidArgument ||
                         s.code() == StatusCode::kFailedPrecondition ||
                         s.code() == StatusCode::kAlreadyExists
                     ? kExitRefused
                     : kExitError);
}

// The application runtime over the database (its services, admin and membership, on this
// thread), and the base URL of the links the membership's mail carries.
struct MembershipSession {
  std::unique_ptr<AppRuntime> app;
  std::string base_url;
  Membership members() { return app->membership(base_url); }
};

Result<MembershipSession> open(const Common& c, const std::string& base_url = "") {
  auto app = open_runtime(c);
  if (!app.ok()) return app.status();
  return MembershipSession{std::move(app).value(), base_url};
}

// Queues the new secrets' mail (as the daemon does for the web).
int mail_secrets(MembershipSession& s, const std::string& game,
                 const std::map<std::string, std::string>& secrets, const std::string& base_url,
                 const MailMaps& maps) {
  mail::MailConfig config;
  config.base_url = base_url;
  config.map_painter = render::mail_map_painter(maps.maps, maps.style);  // the turn's map
  config.map_arrows = maps.arrows();
  mail::MailIngest ingest(*s.app, config);
  auto n = ingest.queue_new_secrets(game, secrets, true);
  if (!n.ok()) return membership_fail(n.status());
  std::printf("%d secret mail(s) queued (sent by the daemon or `adjutant outbox send`).\n", *n);
  return kExitOk;
}

}  // namespace

int game_create_signup(const Common& c, const std::string& scenario_arg,
                       std::optional<unsigned long long> seed, const std::string& id,
                       const std::string& name) {
  Result<Json> doc = Status::Internal("unset");
  const std::string prefix = "bundled:";
  if (scenario_arg.rfind(prefix, 0) == 0) {
    doc = bundled_scenario(scenario_arg.substr(prefix.size()));
  } else {
    std::ifstream in(scenario_arg, std::ios::binary);
    if (!in) return membership_fail(Status::NotFound("cannot read " + scenario_arg));
    std::ostringstream ss;
    ss << in.rdbuf();
    Json j = Json::parse(ss.str(), nullptr, false);
    if (j.is_discarded())
      return membership_fail(Status::InvalidArgument(scenario_arg + " is not JSON"));
    doc = std::move(j);
  }
  if (!doc.ok()) return membership_fail(doc.status());
  auto s = open(c);
  if (!s.ok()) return membership_fail(s.status());
  Json scenario = *doc;
  if (seed) scenario["seed"] = std::to_string(*seed);
  if (!id.empty()) scenario["id"] = id;
  if (!name.empty()) scenario["name"] = name;
  GameAdmin& admin = s->app->admin();
  auto game = admin.create_game(scenario, new_game_seed(), kActor, true, nullptr);
  if (!game.ok()) return membership_fail(game.status());
  if (Status o = s->members().open_signups(game->id, kActor); !o.ok()) return membership_fail(o);
  std::printf(
      "Created game %s (%s), open for sign-ups. Players join with a mail \"JOIN %s [kingdoms]\" "
      "or on /games/%s/join; start it with `adjutant signup start %s`.\n",
      game->id.c_str(), game->name.c_str(), game->id.c_str(), game->id.c_str(), game->id.c_str());
  return kExitOk;
}

int signup_open(const Common& c, const std::string& game) {
  auto s = open(c);
  if (!s.ok()) return membership_fail(s.status());
  if (Status o = s->members().open_signups(game, kActor); !o.ok()) return membership_fail(o);
  std::printf("Game %s is open for sign-ups.\n", game.c_str());
  return kExitOk;
}

int signup_list(const Common& c, const std::string& game) {
  auto s = open(c);
  if (!s.ok()) return membership_fail(s.status());
  auto list = s->members().signups(game);
  if (!list.ok()) return membership_fail(list.status());
  if (list->empty()) std::printf("No sign-ups for %s.\n", game.c_str());
  for (const Signup& x : *list) {
    std::string prefs;
    for (const auto& p : x.preferences) prefs += (prefs.empty() ? "" : " ") + p;
    std::printf("%-5lld %-32s %-10s %-5s %-4s %s  prefs: %s\n", static_cast<long long>(x.id),
                x.email.c_str(), x.state.c_str(), x.player.c_str(), x.channel.c_str(),
                utc_minutes(x.created_at).c_str(), prefs.empty() ? "any" : prefs.c_str());
  }
  return kExitOk;
}

int signup_remove(const Common& c, const std::string& game, std::int64_t id) {
  auto s = open(c);
  if (!s.ok()) return membership_fail(s.status());
  if (Status a = s->members().remove_signup(game, id, kActor); !a.ok()) return membership_fail(a);
  std::printf("Sign-up %lld of %s removed.\n", static_cast<long long>(id), game.c_str());
  return kExitOk;
}

int signup_approve(const Common& c, const std::string& game, std::int64_t id) {
  auto s = open(c);
  if (!s.ok()) return membership_fail(s.status());
  if (Status a = s->members().approve(game, id, kActor); !a.ok()) return membership_fail(a);
  std::printf("Sign-up %lld of %s approved.\n", static_cast<long long>(id), game.c_str());
  return kExitOk;
}

int signup_start(const Common& c, const std::string& game, const std::string& base_url,
                 const MailMaps& maps) {
  auto s = open(c, base_url);
  if (!s.ok()) return membership_fail(s.status());
  auto out = s->members().start(game, kActor);
  if (!out.ok()) return membership_fail(out.status());
  std::printf("Game %s started.\n", game.c_str());
  for (const Assignment& a : out->assigned)
    std::printf("  %-6s %s (%s)\n", a.player.c_str(), a.email.c_str(),
                a.preference_rank ? ("preference " + std::to_string(*a.preference_rank)).c_str()
                                  : "no preference free");
  for (const auto& v : out->vacant) std::printf("  %-6s vacant\n", v.c_str());
  for (const auto& u : out->unassigned) std::printf("  not placed: %s\n", u.c_str());
  return mail_secrets(*s, game, out->secrets, base_url, maps);
}

int signup_invite(const Common& c, const std::string& game, const std::string& email,
                  const std::string& base_url) {
  auto s = open(c, base_url);
  if (!s.ok()) return membership_fail(s.status());
  if (Status i = s->members().invite(game, email, kActor); !i.ok()) return membership_fail(i);
  std::printf("Invitation to %s queued.\n", email.c_str());
  return kExitOk;
}

int player_address(const Common& c, const std::string& game, const std::string& player,
                   const std::string& email) {
  auto s = open(c);
  if (!s.ok()) return membership_fail(s.status());
  if (Status a = s->members().change_address(game, player, email, kActor); !a.ok())
    return membership_fail(a);
  std::printf("Address of %s in %s is now %s; the old and the new address are told.\n",
              player.c_str(), game.c_str(), email.c_str());
  return kExitOk;
}

int player_replace(const Common& c, const std::string& game, const std::string& player,
                   const std::string& email, const std::string& name, const std::string& base_url,
                   const std::string& reason, const MailMaps& maps) {
  auto s = open(c, base_url);
  if (!s.ok()) return membership_fail(s.status());
  auto out = s->members().replace(game, player, email, name, kActor, reason);
  if (!out.ok()) return membership_fail(out.status());
  std::printf("%s in %s now played by %s; every old token revoked.\n", out->player.c_str(),
              game.c_str(), out->email.c_str());
  return mail_secrets(*s, game, {{out->player, out->secret}}, base_url, maps);
}

}  // namespace adj::cli
