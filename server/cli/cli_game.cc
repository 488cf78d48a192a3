#include "server/cli/cli_state.h"

namespace adj::cli {

namespace {

// game delete | archive | unarchive (lifecycle_commands.cc).
void add_game_end_commands(CLI::App* game, CliState& s) {
  auto* del = game->add_subcommand(
      "delete", "Delete a game that has not started, with everything of it (audited on the host)");
  del->add_option("GAME", s.game_id, "Game id")->required();
  del->add_flag("--yes", s.setup.yes,
                "Do not ask (needed when the input is not a terminal); it cannot be undone");
  del->add_option("--reason", s.gm_reason, "Why, kept in the host's audit log (one line)");
  del->callback([&s] { s.code = game_delete(s.common, s.game_id, s.setup.yes, s.gm_reason); });
  for (const bool on : {true, false}) {
    auto* arch = game->add_subcommand(
        on ? "archive" : "unarchive",
        on ? "Archive a game: out of the game lists, readable, taking no orders, sign-ups or turn "
             "runs (audited)"
           : "Put an archived game back in the game lists (audited)");
    arch->add_option("GAME", s.game_id, "Game id")->required();
    arch->add_option("--reason", s.gm_reason, "Why, kept in the audit log (one line)");
    arch->callback([&s, on] { s.code = game_archive(s.common, s.game_id, on, s.gm_reason); });
  }
}

}  // namespace

void add_game_commands(CLI::App& app, CliState& s) {
  // game create | list | show | delete | archive | unarchive
  auto* game = app.add_subcommand("game", "Create, list, show, delete and archive games")
                   ->require_subcommand(1);

  auto* create = game->add_subcommand("create", "Create a game from a scenario JSON file");
  create
      ->add_option("SCENARIO", s.scenario,
                   "Scenario file, '-' for stdin, or bundled:NAME (`adjutant scenario list`; "
                   "`adjutant scenario check FILE` first)")
      ->required();
  create->add_option("--seed", s.seed, "Game seed (default: the scenario's, else random)");
  create->add_flag(
      "--demo-secrets", s.setup.demo_secrets,
      "bundled: keep the published secrets of docs/scenarios.md (demos and tests only) instead "
      "of fresh random ones");
  create->add_option("--id", s.setup.create_id,
                     "Game id (default: the scenario's; another id makes a "
                     "second copy of a scenario)");
  create->add_option("--name", s.setup.create_name, "Game name (default: the scenario's)");
  create->add_flag("--signup", s.setup.signup,
                   "Open the game for sign-ups (players JOIN; `adjutant signup start` assigns "
                   "kingdoms and mails the secrets)");
  create->callback([&s] {
    s.code = s.setup.signup ? game_create_signup(s.common, s.scenario, s.seed, s.setup.create_id,
                                                 s.setup.create_name)
                            : game_create(s.common, s.scenario, s.seed, s.setup.demo_secrets,
                                          s.setup.create_id, s.setup.create_name);
  });

  game->add_subcommand("list", "List the games")->callback([&s] { s.code = game_list(s.common); });

  auto* show = game->add_subcommand("show", "Show a game's open turn");
  show->add_option("GAME", s.game_id, "Game id")->required();
  show->add_flag("--json", s.json, "Machine-readable JSON");
  show->callback([&s] { s.code = game_show(s.common, s.game_id, s.json); });

  add_game_end_commands(game, s);

  // s.player reset
  auto* player_cmd =
      app.add_subcommand("player", "Manage a player's credentials")->require_subcommand(1);
  auto* reset = player_cmd->add_subcommand(
      "reset", "Give a player a new random secret and/or link token (printed once, audited)");
  reset->add_option("GAME", s.game_id, "Game id")->required();
  reset->add_option("PLAYER", s.player, "Player code")->required();
  reset->add_option("--what", s.setup.reset_what, "secret, token or both")
      ->check(CLI::IsMember({"secret", "token", "both"}))
      ->capture_default_str();
  reset->callback(
      [&s] { s.code = player_reset(s.common, s.game_id, s.player, s.setup.reset_what); });

  // attendance show | set | s.code (attendance_commands.cc)
  auto* att = app.add_subcommand("attendance", "Missed turns, civil disorder, absences, standby")
                  ->require_subcommand(1);
  auto* att_show = att->add_subcommand("show", "Missed turns, disorder, absences and standby");
  att_show->add_option("GAME", s.game_id, "Game id")->required();
  att_show->add_flag("--json", s.json, "Machine-readable JSON");
  att_show->callback([&s] { s.code = attendance_show(s.common, s.game_id, s.json); });
  auto* att_set = att->add_subcommand(
      "set", "Change the attendance options, e.g. '{\"civil_disorder_after\": 3}' (audited)");
  att_set->add_option("GAME", s.game_id, "Game id")->required();
  att_set->add_option("OPTIONS", s.setup.att_options, "JSON object of the options to change")
      ->required();
  att_set->callback([&s] { s.code = attendance_set(s.common, s.game_id, s.setup.att_options); });
  auto* att_code = att->add_subcommand(
      "code", "A takeover code for a position (printed once, single use, audited)");
  att_code->add_option("GAME", s.game_id, "Game id")->required();
  att_code->add_option("PLAYER", s.player, "Player code")->required();
  att_code->callback([&s] { s.code = attendance_code(s.common, s.game_id, s.player); });
  auto* att_unstand =
      att->add_subcommand("standby-remove", "Remove an address from the standby list (audited)");
  att_unstand->add_option("GAME", s.game_id, "Game id")->required();
  att_unstand->add_option("ADDRESS", s.setup.standby_address, "The address to remove")->required();
  att_unstand->callback(
      [&s] { s.code = attendance_standby_remove(s.common, s.game_id, s.setup.standby_address); });
  // s.player address | replace; s.setup.signup open | list | approve | start | invite (membership)
  auto* paddr = player_cmd->add_subcommand("address",
                                           "Change a player's address (audited; "
                                           "the old and new address are told)");
  paddr->add_option("GAME", s.game_id, "Game id")->required();
  paddr->add_option("PLAYER", s.player, "Player code")->required();
  paddr->add_option("EMAIL", s.setup.member_email, "New address")->required();
  paddr->callback(
      [&s] { s.code = player_address(s.common, s.game_id, s.player, s.setup.member_email); });
  auto* prepl = player_cmd->add_subcommand(
      "replace",
      "Give a position to a new player: new address and secret (mailed), old "
      "tokens revoked, audited");
  prepl->add_option("GAME", s.game_id, "Game id")->required();
  prepl->add_option("PLAYER", s.player, "Player code")->required();
  prepl->add_option("EMAIL", s.setup.member_email, "The new player's address")->required();
  prepl->add_option("--name", s.setup.member_name, "The new player's name");
  prepl->add_option("--base-url", s.setup.member_base_url, "Public base URL for the sign-in link");
  prepl->add_option("--reason", s.gm_reason,
                    "Why, quoted in the notice to the old address (one line, at most 500 "
                    "characters)");
  add_mail_map_options(prepl, s.setup.member_maps, "the new player's secret mail");
  prepl->callback([&s] {
    s.code =
        player_replace(s.common, s.game_id, s.player, s.setup.member_email, s.setup.member_name,
                       s.setup.member_base_url, s.gm_reason, s.setup.member_maps);
  });
  auto* signup_cmd =
      app.add_subcommand("signup", "Sign-ups of a game open for sign-ups")->require_subcommand(1);
  auto* sopen = signup_cmd->add_subcommand("open", "Open a game that has not started for sign-ups");
  sopen->add_option("GAME", s.game_id, "Game id")->required();
  sopen->callback([&s] { s.code = signup_open(s.common, s.game_id); });
  auto* slist = signup_cmd->add_subcommand("list", "List a game's sign-ups");
  slist->add_option("GAME", s.game_id, "Game id")->required();
  slist->callback([&s] { s.code = signup_list(s.common, s.game_id); });
  auto* sappr = signup_cmd->add_subcommand("approve", "Approve a sign-up (by its number)");
  sappr->add_option("GAME", s.game_id, "Game id")->required();
  sappr->add_option("ID", s.setup.signup_number, "Sign-up number (signup list)")->required();
  sappr->callback([&s] { s.code = signup_approve(s.common, s.game_id, s.setup.signup_number); });
  auto* sremove = signup_cmd->add_subcommand("remove", "Remove a sign-up (by its number; audited)");
  sremove->add_option("GAME", s.game_id, "Game id")->required();
  sremove->add_option("ID", s.setup.signup_number, "Sign-up number (signup list)")->required();
  sremove->callback([&s] { s.code = signup_remove(s.common, s.game_id, s.setup.signup_number); });
  auto* sstart = signup_cmd->add_subcommand(
      "start", "Assign kingdoms to the sign-ups and start the game (secrets are mailed)");
  sstart->add_option("GAME", s.game_id, "Game id")->required();
  sstart->add_option("--base-url", s.setup.member_base_url,
                     "Public base URL for the sign-in links");
  add_mail_map_options(sstart, s.setup.member_maps, "each player's secret mail");
  sstart->callback([&s] {
    s.code = signup_start(s.common, s.game_id, s.setup.member_base_url, s.setup.member_maps);
  });
  auto* sinv = signup_cmd->add_subcommand("invite", "Mail an address how to join the game");
  sinv->add_option("GAME", s.game_id, "Game id")->required();
  sinv->add_option("EMAIL", s.setup.member_email, "Address to invite")->required();
  sinv->add_option("--base-url", s.setup.member_base_url, "Public base URL for the join page link");
  sinv->callback([&s] {
    s.code = signup_invite(s.common, s.game_id, s.setup.member_email, s.setup.member_base_url);
  });
  // press options | list
  auto* press_cmd = app.add_subcommand("press", "Press between players: options and messages")
                        ->require_subcommand(1);
  auto* popt = press_cmd->add_subcommand("options", "Show or set a game's press options (audited)");
  popt->add_option("GAME", s.game_id, "Game id")->required();
  popt->add_option("--press", s.setup.press_level, "none, public, private or anonymous")
      ->check(CLI::IsMember({"none", "public", "private", "anonymous"}));
  popt->add_option("--gm-reads-private", s.setup.press_gm_reads, "yes or no")
      ->check(CLI::IsMember({"yes", "no"}));
  popt->callback([&s] {
    s.code = press_options(s.common, s.game_id, s.setup.press_level, s.setup.press_gm_reads);
  });
  auto* plist = press_cmd->add_subcommand("list", "Print the press the GM may read");
  plist->add_option("GAME", s.game_id, "Game id")->required();
  plist->callback([&s] { s.code = press_list(s.common, s.game_id); });
}

}  // namespace adj::cli
