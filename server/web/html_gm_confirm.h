// The GM desk's confirmation pages for actions that mail every player or take a position away:
// what the action will do, and a field for the reason the players are told.
#pragma once

#include <optional>
#include <string>

#include "server/web/html_pages.h"

namespace adj::web::html {

// POST /gm/games/{game}/rollback without confirm=1: the page that says what the rollback does
// (which turns' results are withdrawn; every player is mailed) and asks for an optional reason
// (form confirm-rollback-form, confirm=1). Checks as the action does first (GM, CSRF, a stale
// form), so a forged or stale form gets its answer here. nullopt when confirmed, or when there is
// nothing to confirm (a turn that cannot be reopened): the caller then rolls back, which says why
// not.
std::optional<Response> confirm_rollback(WebContext& ctx, const Request& req,
                                         const std::string& game);

// POST /gm/games/{game}/delete without confirm=1: the page that says what deleting the draft
// removes (its players, sign-ups and order files; mail not sent yet; nobody is told; it cannot
// be undone) and asks for an optional reason (form confirm-delete-form, confirm=1). Checks as
// the action does first (GM, CSRF, a stale form). nullopt when confirmed, or when there is
// nothing to confirm (a game that has started): the caller then deletes, which says why not.
std::optional<Response> confirm_delete(WebContext& ctx, const Request& req,
                                       const std::string& game);

}  // namespace adj::web::html
