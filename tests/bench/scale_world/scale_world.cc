// The helper of scripts/bench-scale.sh (Release; no Google Benchmark):
//   adjutant_scale_world make  --db DB --players N [--game ID] [--engine-script LUA]
//     creates the grid world of tests/support/grid_world.h with N players (5 areas each) as game
//     ID (default "bench") through the real Services and store, and stores one accepted order
//     file per player for turn 1 (16 actions of every kind each). Secrets are hashed at
//     libsodium's minimum cost: the benchmark measures the turn, not the set-up. With
//     --engine-script the game's engine is that Lua file (stored as script version 1).
//   adjutant_scale_world same --db DB --other DB2 --game ID --turn T
//     compares what turn T of game ID left in two databases (the same world run on two
//     engines): the next state, and every battle's input and outcome, each with its "engine"
//     left out. Prints "same yes|no" and the first difference.
//   adjutant_scale_world floor --db DB --turn T [--game ID] --out PLAIN
//     the SQLite floor: reads the rows the commit of turn T wrote (the turn record, the battles,
//     the reports, the next state) from DB, then writes the same rows with one prepared INSERT
//     per table in one transaction into a fresh database PLAIN with bare tables (same columns, no
//     index, WAL, synchronous=NORMAL and the page size of DB, as the store) and prints the time of
//     that transaction: floor_ms from BEGIN to the end of COMMIT, which, as the store's commit,
//     includes SQLite's automatic checkpoint (wal_autocheckpoint at its default on both sides: the
//     transaction's pages copied from the WAL into the database file, and its two fsyncs);
//     floor_insert_ms the part before COMMIT. Not in the floor: the open-state index rows (~5% of
//     the bytes).
// Prints "key value" lines for the script; exits 1 with a message on any error.
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "server/app/open_store.h"
#include "server/app/secrets.h"
#include "server/app/services.h"
#include "tests/support/grid_world.h"

namespace {

using namespace adj;
using namespace adj::testing::grid_world;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "adjutant_scale_world: %s\n", what.c_str());
  std::exit(1);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int make(const std::string& db, int players, const std::string& game,
         const std::string& engine_script) {
  if (players < 1 || players > 100000) die("--players must be between 1 and 100000");
  SecretHashCost cheap;
  cheap.opslimit = 1;
  cheap.memlimit = 8u << 10;
  if (Status s = set_secret_hash_cost(cheap); !s.ok()) die(s.message());
  auto t0 = std::chrono::steady_clock::now();
  auto store = open_store(db, 0);
  if (!store.ok()) die(db + ": " + store.status().message());
  Store& st = **store;
  Services svc(Stores{st, st, st, st, st, st}, [] { return UnixTime{0}; });
  const Size size{players};
  Json scenario = world(game, size);
  if (!engine_script.empty()) {
    std::ifstream in(engine_script, std::ios::binary);
    if (!in) die("cannot read " + engine_script);
    std::ostringstream text;
    text << in.rdbuf();
    scenario["engine"] = {{"name", "lua"}, {"script", text.str()}};
  }
  auto created = svc.create_game(scenario, 7);
  if (!created.ok()) die("create_game: " + created.status().message());
  std::printf("create_ms %.0f\n", ms_since(t0));
  t0 = std::chrono::steady_clock::now();
  for (int p = 0; p < players; ++p) {
    SubmissionRecord r;
    r.game = game;
    r.player = player(p);
    r.turn = 1;
    r.source = "bench";
    r.raw_text = orders_for(p, game, size);
    r.accepted = true;
    if (auto id = st.put_submission(r); !id.ok()) die("put_submission: " + id.status().message());
  }
  std::printf("submit_ms %.0f\nplayers %d\nareas %d\n", ms_since(t0), players, size.areas());
  return 0;
}

struct Db {
  sqlite3* h = nullptr;
  explicit Db(const std::string& path, int flags) {
    if (sqlite3_open_v2(path.c_str(), &h, flags, nullptr) != SQLITE_OK)
      die(path + ": " + (h ? sqlite3_errmsg(h) : "cannot open"));
  }
  ~Db() { sqlite3_close(h); }
  void exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(h, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string e = err ? err : "?";
      sqlite3_free(err);
      die(std::string(sql) + ": " + e);
    }
  }
};

// One table's rows, every column as text (NULL as absent).
struct Rows {
  std::string table;
  int columns = 0;
  std::vector<std::vector<std::string>> rows;
  std::size_t bytes = 0;
};

Rows read_rows(Db& db, const std::string& table, const std::string& cols, const std::string& where,
               const std::string& game, int turn) {
  Rows out;
  out.table = table;
  sqlite3_stmt* st = nullptr;
  const std::string sql = "SELECT " + cols + " FROM " + table + " WHERE " + where;
  if (sqlite3_prepare_v2(db.h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
    die(sql + ": " + sqlite3_errmsg(db.h));
  sqlite3_bind_text(st, 1, game.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st, 2, turn);
  out.columns = sqlite3_column_count(st);
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int c = 0; c < out.columns; ++c) {
      const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
      row.emplace_back(t ? t : "");
      out.bytes += row.back().size();
    }
    out.rows.push_back(std::move(row));
  }
  sqlite3_finalize(st);
  return out;
}

int floor(const std::string& db, int turn, const std::string& game, const std::string& out) {
  std::vector<Rows> tables;
  int page_size = 4096;
  {
    Db src(db, SQLITE_OPEN_READONLY);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(src.h, "PRAGMA page_size", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      page_size = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    tables.push_back(read_rows(src, "turns", "game_id, turn, seed, summary_json, ran_at",
                               "game_id = ?1 AND turn = ?2", game, turn));
    tables.push_back(read_rows(src, "battles",
                               "game_id, turn, battle_id, seed, engine, input_json, outcome_json",
                               "game_id = ?1 AND turn = ?2", game, turn));
    tables.push_back(read_rows(src, "reports", "game_id, turn, player, text, json",
                               "game_id = ?1 AND turn = ?2", game, turn));
    tables.push_back(read_rows(src, "turn_states", "game_id, turn, state_json",
                               "game_id = ?1 AND turn = ?2 + 1", game, turn));
  }
  if (tables[0].rows.empty())
    die("turn " + std::to_string(turn) + " of " + game + " is not stored");
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(out + ext);
  Db dst(out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  dst.exec(("PRAGMA page_size=" + std::to_string(page_size)).c_str());
  dst.exec("PRAGMA journal_mode=WAL");
  dst.exec("PRAGMA synchronous=NORMAL");
  std::size_t rows = 0, bytes = 0;
  for (const auto& t : tables) {
    std::string sql = "CREATE TABLE " + t.table + "(c0";
    for (int c = 1; c < t.columns; ++c) sql += ", c" + std::to_string(c);
    dst.exec((sql + ")").c_str());
    rows += t.rows.size();
    bytes += t.bytes;
  }
  const auto t0 = std::chrono::steady_clock::now();
  dst.exec("BEGIN IMMEDIATE");
  for (const auto& t : tables) {
    std::string sql = "INSERT INTO " + t.table + " VALUES (?";
    for (int c = 1; c < t.columns; ++c) sql += ", ?";
    sql += ")";
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(dst.h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
      die(sql + ": " + sqlite3_errmsg(dst.h));
    for (const auto& row : t.rows) {
      for (int c = 0; c < t.columns; ++c)
        sqlite3_bind_text(st, c + 1, row[c].data(), static_cast<int>(row[c].size()), SQLITE_STATIC);
      if (sqlite3_step(st) != SQLITE_DONE) die(sql + ": " + sqlite3_errmsg(dst.h));
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
  }
  const double insert_ms = ms_since(t0);
  dst.exec("COMMIT");
  std::printf("floor_ms %.1f\nfloor_insert_ms %.1f\nfloor_rows %zu\nfloor_MB %.1f\n", ms_since(t0),
              insert_ms, rows, bytes / 1e6);
  return 0;
}

// See the header comment ("same").
int same(const std::string& db, const std::string& other, int turn, const std::string& game) {
  auto a = open_store(db, 0);
  if (!a.ok()) die(db + ": " + a.status().message());
  auto b = open_store(other, 0);
  if (!b.ok()) die(other + ": " + b.status().message());
  auto sa = (*a)->load_state(game, turn + 1);
  auto sb = (*b)->load_state(game, turn + 1);
  if (!sa.ok() || !sb.ok()) die("turn " + std::to_string(turn) + " has not run in both");
  Json ja = to_json(*sa), jb = to_json(*sb);
  ja.erase("engine");
  jb.erase("engine");
  if (ja != jb) {
    std::printf("same no\ndifference next state\n");
    return 0;
  }
  auto ba = (*a)->battles(game, turn);
  auto bb = (*b)->battles(game, turn);
  if (!ba.ok() || !bb.ok()) die("cannot read the battles");
  if (ba->size() != bb->size()) {
    std::printf("same no\ndifference battle count %zu vs %zu\n", ba->size(), bb->size());
    return 0;
  }
  for (std::size_t i = 0; i < ba->size(); ++i) {
    Json ia = (*ba)[i].input, ib = (*bb)[i].input;
    Json oa = (*ba)[i].outcome, ob = (*bb)[i].outcome;
    for (Json* j : {&ia, &ib, &oa, &ob}) j->erase("engine");  // each names its engine
    if ((*ba)[i].id != (*bb)[i].id || ia != ib || oa != ob) {
      std::printf("same no\ndifference battle %s\n", (*ba)[i].id.c_str());
      return 0;
    }
  }
  std::printf("same yes\nbattles %zu\n", ba->size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: make|floor --db DB [--players N] [--turn T] [--game ID] [--out PLAIN]");
  const std::string cmd = argv[1];
  std::string db, game = "bench", out, engine_script, other;
  int players = 0, turn = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--db")
      db = v;
    else if (k == "--game")
      game = v;
    else if (k == "--out")
      out = v;
    else if (k == "--engine-script")
      engine_script = v;
    else if (k == "--other")
      other = v;
    else if (k == "--players")
      players = std::atoi(v.c_str());
    else if (k == "--turn")
      turn = std::atoi(v.c_str());
    else
      die("unknown option " + k);
  }
  if (db.empty()) die("--db is required");
  if (cmd == "make") return make(db, players, game, engine_script);
  if (cmd == "same") {
    if (other.empty()) die("--other is required");
    return same(db, other, turn, game);
  }
  if (cmd == "floor") {
    if (out.empty()) die("--out is required");
    return floor(db, turn, game, out);
  }
  die("unknown command " + cmd);
}
