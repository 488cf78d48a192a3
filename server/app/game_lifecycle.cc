// GameAdmin: the end of a game (admin.h): deleting a draft, archiving and unarchiving.
#include <spdlog/spdlog.h>

#include "base/log_escape.h"
#include "server/app/admin.h"
#include "server/app/audit_log.h"

namespace adj {

namespace {

Json why_detail(const std::string& reason) {
  Json d = Json::object();
  if (!reason.empty()) d["why"] = reason;
  return d;
}

}  // namespace

Result<GameDeletion> GameAdmin::delete_game(const std::string& game, const std::string& actor,
                                            const std::string& reason) {
  ADJ_RETURN_IF_ERROR(check_gm_reason(reason));
  AuditEntry record;
  record.game = game;
  record.at = now_();
  record.actor = actor;
  record.action = "delete";
  record.detail = why_detail(reason);
  Result<GameDeletion> out = admin_.delete_game(game, record);
  if (!out.ok()) return out;
  {
    std::lock_guard<std::mutex> lock(quiet_mu_);
    quiet_.erase(game);
  }
  spdlog::info("event=game_deleted game={} by={} host_audit={}", log_escape(game),
               log_escape(actor), out->host_audit_id);
  return out;
}

Status GameAdmin::archive_game(const std::string& game, const std::string& actor,
                               const std::string& reason) {
  ADJ_RETURN_IF_ERROR(check_gm_reason(reason));
  Result<GameSummary> g = s_.games.game_summary(game);
  if (!g.ok()) return g.status();
  if (g->archived_at)
    return Status::FailedPrecondition("game " + game + " is archived already; nothing was changed");
  const UnixTime now = now_();
  ADJ_RETURN_IF_ERROR(admin_.set_archived(game, now));
  Status first = audit(game, actor, "archive", why_detail(reason));
  Status host = admin_.append_host_audit({0, game, now, actor, "archive", why_detail(reason)});
  return first.ok() ? host : first;
}

Status GameAdmin::unarchive_game(const std::string& game, const std::string& actor,
                                 const std::string& reason) {
  ADJ_RETURN_IF_ERROR(check_gm_reason(reason));
  Result<GameSummary> g = s_.games.game_summary(game);
  if (!g.ok()) return g.status();
  if (!g->archived_at)
    return Status::FailedPrecondition("game " + game + " is not archived; nothing was changed");
  const UnixTime now = now_();
  ADJ_RETURN_IF_ERROR(admin_.set_archived(game, std::nullopt));
  Status first = audit(game, actor, "unarchive", why_detail(reason));
  Status host = admin_.append_host_audit({0, game, now, actor, "unarchive", why_detail(reason)});
  return first.ok() ? host : first;
}

Result<bool> GameAdmin::has_started(const std::string& game) {
  Result<GameSummary> g = s_.games.game_summary(game);
  if (!g.ok()) return g.status();
  if (g->turn > 1 && s_.games.turn_ran_at(game, g->turn - 1).ok()) return true;
  Result<std::vector<AuditEntry>> log = admin_.audit_log(game);
  if (!log.ok()) return log.status();
  for (const AuditEntry& e : *log)
    if (e.action == "run") return true;
  return false;
}

Result<std::vector<AuditEntry>> GameAdmin::host_audit_log(int limit) {
  return admin_.host_audit_log(limit);
}

}  // namespace adj
