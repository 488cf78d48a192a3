#include "storage/table_copy.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace adj {

namespace {

// Each side's own migration bookkeeping, and SQLite's revision_bulk (migration 0016: rows only
// inside the store's own transactions): never copied or compared.
const std::set<std::string> kBookkeeping = {"schema_migrations", "sqlite_sequence",
                                            "revision_bulk"};
// The open-state index (migration 0014): derived from turn_states, and copied after it (its
// triggers mark the index stale).
const std::set<std::string> kOpenStateIndex = {"open_states", "open_state_players",
                                               "open_state_areas", "open_state_edges"};
// Seeded by a fresh database's migrations (SQLite 0005 seeds hash_credentials); emptied on the
// destination before the copy.
const std::string kPendingUpgrades = "pending_upgrades";
// Written by triggers on every insert: copied last, over what the triggers wrote.
const std::string kRevisions = "revisions";

bool names_secret(const std::string& column) {
  for (const char* w : {"hash", "token", "secret", "code", "raw", "password"})
    if (column.find(w) != std::string::npos) return true;
  return false;
}

std::string show_cell(const Cell& c) {
  switch (c.kind()) {
    case Cell::Kind::kNull:
      return "NULL";
    case Cell::Kind::kInt:
      return std::to_string(c.as_int());
    case Cell::Kind::kReal:
      return std::to_string(c.as_real());
    default:
      break;
  }
  // Key text (game ids, player codes); bounded and printable only.
  const std::string_view s = c.as_text();
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size() && i < 64; ++i) {
    const unsigned char ch = static_cast<unsigned char>(s[i]);
    out += (ch >= 0x20 && ch < 0x7f && ch != '"') ? static_cast<char>(ch) : '?';
  }
  if (s.size() > 64) out += "...";
  return out + "\"";
}

// "(game_id=\"x\", turn=3)": the key of `row`, its columns `key` at `key_at`, secrets shown as
// ***.
std::string show_key(const std::vector<std::string>& key, const std::vector<std::size_t>& key_at,
                     const std::vector<Cell>& row) {
  std::string out = "(";
  for (std::size_t i = 0; i < key.size(); ++i) {
    const Cell cell = key_at[i] < row.size() ? row[key_at[i]] : Cell{};
    out += (i ? ", " : "") + key[i] + "=" +
           (names_secret(key[i]) ? std::string("***") : show_cell(cell));
  }
  return out + ")";
}

struct Plan {
  std::vector<TableInfo> tables;  // destination's info, in copy order (parents first)
  std::map<std::string, std::vector<std::string>> columns;  // table -> common columns
  std::map<std::string, std::vector<std::string>> order;    // table -> order-by columns
};

const TableInfo* find(const std::vector<TableInfo>& ts, const std::string& name) {
  for (const auto& t : ts)
    if (t.name == name) return &t;
  return nullptr;
}

// Ends a TableAccess's read when it goes.
struct EndRead {
  TableAccess& a;
  ~EndRead() { a.end_read(); }
};

bool has_column(const TableInfo& t, const std::string& name) {
  return std::any_of(t.columns.begin(), t.columns.end(),
                     [&](const ColumnInfo& c) { return c.name == name; });
}

Result<Plan> make_plan(TableAccess& from, TableAccess& to) {
  ADJ_TRY(const std::vector<TableInfo> src, from.tables());
  ADJ_TRY(const std::vector<TableInfo> dst, to.tables());
  Plan plan;
  std::vector<std::string> problems;
  std::vector<const TableInfo*> common;
  for (const auto& s : src) {
    if (kBookkeeping.count(s.name)) continue;
    const TableInfo* d = find(dst, s.name);
    if (!d) {
      problems.push_back("table " + s.name + " is only in the source");
      continue;
    }
    common.push_back(d);
    std::vector<std::string> cols;
    for (const auto& c : s.columns) {
      if (!has_column(*d, c.name))
        problems.push_back("column " + s.name + "." + c.name + " is only in the source");
      else
        cols.push_back(c.name);
    }
    for (const auto& c : d->columns)
      if (!has_column(s, c.name))
        problems.push_back("column " + s.name + "." + c.name + " is only in the destination");
    plan.columns[s.name] = cols;
    plan.order[s.name] = s.primary_key.empty() ? cols : s.primary_key;
  }
  for (const auto& d : dst) {
    if (kBookkeeping.count(d.name) || find(src, d.name)) continue;
    problems.push_back("table " + d.name + " is only in the destination");
  }
  if (!problems.empty()) {
    std::string m = "the two schemas differ (are both databases at this version's schema?): ";
    for (std::size_t i = 0; i < problems.size(); ++i) m += (i ? "; " : "") + problems[i];
    return Status::FailedPrecondition(m);
  }
  // Parents before children; revisions last (it overwrites what the triggers wrote).
  std::set<std::string> done;
  std::vector<const TableInfo*> left;
  // The open-state index goes after turn_states, whose triggers mark it stale.
  std::vector<TableInfo> ordered;
  for (const TableInfo* t : common) {
    if (t->name == kRevisions) continue;
    ordered.push_back(*t);
    if (kOpenStateIndex.count(t->name)) ordered.back().parents.push_back("turn_states");
  }
  for (const TableInfo& t : ordered) left.push_back(&t);
  while (!left.empty()) {
    bool progress = false;
    for (auto it = left.begin(); it != left.end();) {
      const bool ready = std::all_of(
          (*it)->parents.begin(), (*it)->parents.end(),
          [&](const std::string& p) { return done.count(p) || !plan.columns.count(p); });
      if (ready) {
        plan.tables.push_back(**it);
        done.insert((*it)->name);
        it = left.erase(it);
        progress = true;
      } else {
        ++it;
      }
    }
    if (!progress)
      return Status::Internal("foreign keys form a cycle at table " + left.front()->name);
  }
  if (const TableInfo* r = find(dst, kRevisions); r && plan.columns.count(kRevisions))
    plan.tables.push_back(*r);
  return plan;
}

}  // namespace

bool same_value(const Cell& a, const Cell& b) {
  using K = Cell::Kind;
  const bool a_str = a.kind() == K::kText || a.kind() == K::kBytes;
  const bool b_str = b.kind() == K::kText || b.kind() == K::kBytes;
  if (a_str || b_str) return a_str && b_str && a.as_text() == b.as_text();
  if (a.kind() == K::kNull || b.kind() == K::kNull) return a.kind() == b.kind();
  if (a.kind() == K::kInt && b.kind() == K::kInt) return a.as_int() == b.as_int();
  const double x = a.kind() == K::kInt ? static_cast<double>(a.as_int()) : a.as_real();
  const double y = b.kind() == K::kInt ? static_cast<double>(b.as_int()) : b.as_real();
  return std::memcmp(&x, &y, sizeof x) == 0 || x == y;
}

Status copy_tables(TableAccess& from, TableAccess& to) {
  ADJ_TRY(const Plan plan, make_plan(from, to));
  ADJ_RETURN_IF_ERROR(from.begin_read());
  const EndRead end_read{from};

  // The source must have run its upgrade steps (a pending hash_credentials means secrets in
  // clear, which the destination must never receive).
  if (plan.columns.count(kPendingUpgrades)) {
    ADJ_TRY(const std::int64_t n, from.count(kPendingUpgrades));
    if (n > 0)
      return Status::FailedPrecondition(
          "the source has " + std::to_string(n) +
          " pending upgrade step(s) (pending_upgrades, e.g. hash_credentials): open it once with "
          "this version (e.g. `adjutant --db SOURCE game list`) and copy again");
  }

  ADJ_RETURN_IF_ERROR(to.begin_write());
  struct Undo {  // rolls back whatever is not committed (nothing after commit())
    TableAccess& a;
    ~Undo() { a.rollback(); }
  } undo{to};
  // Nothing may be there yet: no games (asked first, for the clearer message), no rows in any
  // copied table.
  std::vector<TableInfo> check = plan.tables;
  std::stable_partition(check.begin(), check.end(),
                        [](const TableInfo& t) { return t.name == "games"; });
  for (const auto& t : check) {
    if (t.name == kPendingUpgrades || t.name == kRevisions) continue;
    ADJ_TRY(const std::int64_t n, to.count(t.name));
    if (n > 0) {
      if (t.name == "games")
        return Status::FailedPrecondition("the destination already holds " + std::to_string(n) +
                                          " game(s); copy only into an empty database");
      return Status::FailedPrecondition("the destination's table " + t.name + " already holds " +
                                        std::to_string(n) +
                                        " row(s); copy only into an empty database");
    }
  }
  for (const char* t : {"pending_upgrades", "revisions"})
    if (plan.columns.count(t)) ADJ_RETURN_IF_ERROR(to.clear(t));
  Status st = Status::Ok();
  for (const auto& t : plan.tables) {
    if (t.name == kRevisions) {
      st = to.clear(kRevisions);  // what the triggers wrote during the copy
      if (!st.ok()) break;
    }
    const auto& cols = plan.columns.at(t.name);
    st = [&]() -> Status {
      ADJ_TRY(TableAccess::Cursor rows, from.open_scan(t.name, cols, plan.order.at(t.name)));
      for (std::vector<Cell> row;;) {
        ADJ_TRY(const bool more, rows.next(row));
        if (!more) return Status::Ok();
        ADJ_RETURN_IF_ERROR(to.insert(t, cols, row));
      }
    }();
    if (!st.ok()) {
      st = Status(st.code(), "copying table " + t.name + ": " + st.message());
      break;
    }
  }
  if (st.ok()) st = to.finish_identities(plan.tables);
  if (st.ok()) st = to.commit();
  return st;
}

Result<std::vector<TableCount>> compare_tables(TableAccess& from, TableAccess& to) {
  ADJ_TRY(const Plan plan, make_plan(from, to));
  ADJ_RETURN_IF_ERROR(from.begin_read());
  const EndRead end_from{from};
  ADJ_RETURN_IF_ERROR(to.begin_read());
  const EndRead end_to{to};

  std::vector<TableCount> counts;
  for (const auto& t : plan.tables) {
    const auto& cols = plan.columns.at(t.name);
    const auto& order = plan.order.at(t.name);
    std::vector<std::size_t> key_at;
    for (const auto& k : order)
      key_at.push_back(
          static_cast<std::size_t>(std::find(cols.begin(), cols.end(), k) - cols.begin()));
    const auto key_of = [&](const std::vector<Cell>& row) { return show_key(order, key_at, row); };
    // Both sides walked together, one row of each in memory.
    ADJ_TRY(TableAccess::Cursor mine, from.open_scan(t.name, cols, order));
    ADJ_TRY(TableAccess::Cursor theirs, to.open_scan(t.name, cols, order));
    std::vector<Cell> row, other;
    std::int64_t n = 0;
    for (;;) {
      ADJ_TRY(const bool a, mine.next(row));
      ADJ_TRY(const bool b, theirs.next(other));
      if (!a && !b) break;
      if (!b)
        return Status::FailedPrecondition("table " + t.name + ": row " + key_of(row) +
                                          " is missing from the destination");
      if (!a)
        return Status::FailedPrecondition("table " + t.name + ": row " + key_of(other) +
                                          " is only in the destination");
      ++n;
      for (std::size_t c = 0; c < cols.size(); ++c)
        if (!same_value(row[c], other[c])) {
          bool same_key = true;
          for (std::size_t k : key_at)
            if (k < row.size() && !same_value(row[k], other[k])) same_key = false;
          const std::string where = same_key
                                        ? "row " + key_of(row) + " differs in column " + cols[c]
                                        : "row " + key_of(row) + " is missing or differs there";
          return Status::FailedPrecondition("table " + t.name + ": " + where);
        }
    }
    counts.push_back({t.name, n});
  }
  return counts;
}

}  // namespace adj
