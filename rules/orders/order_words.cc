#include "rules/orders/parser_internal.h"

#include <algorithm>

namespace adj::order_parse {

// ---------------------------------------------------------------------------------------------
// Tokens.

bool all_digits(string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

bool all_alpha(string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_alpha(c)) return false;
  return true;
}

// An area or player code: a letter, then letters, digits or underscores.
bool is_code(string_view s) {
  if (s.empty() || !is_alpha(s[0])) return false;
  for (char c : s)
    if (!is_alpha(c) && !is_digit(c) && c != '_') return false;
  return true;
}

// REQUIRES: all_digits(s) && s.size() <= kMaxDigits.
int to_int(string_view s) {
  int n = 0;
  for (char c : s) n = n * 10 + (c - '0');
  return n;
}

string quote(string_view s) {
  string out;
  out.reserve(s.size() + 2);
  out += '"';
  out.append(s);
  out += '"';
  return out;
}

// ---------------------------------------------------------------------------------------------
// Messages (the table in grammar.md lists each one).

string usage(Verb v) {
  switch (v) {
    case Verb::kMove:
    case Verb::kAssault:
    case Verb::kProbe:
    case Verb::kOverrun:
      return string(verb_name(v)) + " needs <from> <to> [<n> | AB-<n>]";
    case Verb::kAmbush:
      return "AMBUSH needs <where> <against>";
    case Verb::kRetreat:
      return "RETREAT needs <from> [<to>]";
    case Verb::kDefend:
      return "DEFEND needs <where>";
    case Verb::kLevy:
      return "LEVY needs <where> [<n>]";
    case Verb::kOrder:
      return "ORDER needs [<bps>]";
    case Verb::kGift:
      return "GIFT needs <kingdom> <bps>";
    case Verb::kMigrate:
      return "MIGRATE needs <from> <to> <n>";
    case Verb::kSupport:
      return "SUPPORT needs <where> <to>";
    case Verb::kRaid:
      return "RAID needs <from> <to> [<n> | AB-<n>]";
    case Verb::kInvade:
      return "INVADE needs <from> <to> [-]";
  }
  return "";
}

string extra_word(Verb v, string_view token) {
  return usage(v) + "; " + quote(token) + " is extra";
}

string too_large(string_view token) { return quote(token) + " is too large a number"; }

// ---------------------------------------------------------------------------------------------
// Order lines.

// Reads an area code for `v` into `out`. Returns "" or the reason the word is not one.
string area_arg(Verb v, string_view token, string& out) {
  if (all_digits(token) || istarts_with(token, "AB-")) return usage(v);
  if (!is_code(token)) return quote(token) + " is not an area code";
  out = upper(string(token));
  return {};
}

// Reads an optional quantity and then KEYWORD <n> pairs. `all_but` allows AB-n.
// True when `word` followed by `next` is an option: a word of letters, then a number.
bool is_option(string_view word, string_view next) { return all_alpha(word) && all_digits(next); }

// Reads KEYWORD <n> pairs into o.extras, starting with the already read word `tok`.
string options(Tokens& t, string_view tok, Order& o) {
  while (!tok.empty()) {
    if (!all_alpha(tok))
      return "unexpected " + quote(tok) +
             " (extra options are written as a word and a number, e.g. CARD 3)";
    string_view val = t.next();
    if (!all_digits(val)) return quote(tok) + " needs a number after it";
    if (val.size() > kMaxDigits) return too_large(val);
    string key = upper(string(tok));
    if (!o.extras.emplace(key, to_int(val)).second) return quote(key) + " is given twice";
    tok = t.next();
  }
  return {};
}

// Reads an optional quantity and then options. `all_but` allows AB-n.
string quantity_and_options(Tokens& t, Order& o, bool all_but) {
  string_view tok = t.next();
  if (tok.empty()) return {};
  if (all_digits(tok)) {
    if (tok.size() > kMaxDigits) return too_large(tok);
    o.qty = {Quantity::Kind::kExact, to_int(tok)};
    tok = t.next();
  } else if (istarts_with(tok, "AB-") || iequals(tok, "AB")) {
    if (!all_but)
      return quote(tok) + ": \"all but\" is only for MOVE, ASSAULT, PROBE, OVERRUN and RAID";
    string_view n = tok.size() > 3 ? tok.substr(3) : string_view();
    if (!all_digits(n)) return quote(tok) + " is not a number of armies";
    if (n.size() > kMaxDigits) return too_large(tok);
    o.qty = {Quantity::Kind::kAllBut, to_int(n)};
    tok = t.next();
  } else if (!is_option(tok, t.peek())) {
    return quote(tok) + " is not a valid quantity";
  }
  return options(t, tok, o);
}

// Reads the required plain number of GIFT and MIGRATE into o.qty.
string exact_number(string_view tok, Order& o) {
  if (istarts_with(tok, "AB-") || iequals(tok, "AB"))
    return quote(tok) + ": \"all but\" is only for MOVE, ASSAULT, PROBE, OVERRUN and RAID";
  if (!all_digits(tok)) return quote(tok) + " is not a number";
  if (tok.size() > kMaxDigits) return too_large(tok);
  o.qty = {Quantity::Kind::kExact, to_int(tok)};
  return {};
}

// Reads the options of AMBUSH, RETREAT, DEFEND, GIFT, MIGRATE and INVADE, which take no (further)
// quantity: any other word after their arguments is extra.
string standing_options(Verb v, Tokens& t, Order& o) {
  string_view tok = t.next();
  if (tok.empty()) return {};
  if (!is_option(tok, t.peek())) return extra_word(v, tok);
  return options(t, tok, o);
}

// Parses the words after the verb into `o`. Returns "" or the reason the line is rejected.
string order_body(Verb v, Tokens& t, Order& o) {
  switch (v) {
    case Verb::kMove:
    case Verb::kAssault:
    case Verb::kProbe:
    case Verb::kOverrun:
    case Verb::kRaid: {  // RAID takes its number of armies like MOVE (seed 5.1)
      string_view from = t.next(), to = t.next();
      if (to.empty()) return usage(v);
      if (string r = area_arg(v, from, o.from); !r.empty()) return r;
      if (string r = area_arg(v, to, o.to); !r.empty()) return r;
      return quantity_and_options(t, o, true);
    }
    case Verb::kSupport:
    case Verb::kAmbush: {
      string_view where = t.next(), against = t.next();
      if (against.empty()) return usage(v);
      if (string r = area_arg(v, where, o.from); !r.empty()) return r;
      if (string r = area_arg(v, against, o.to); !r.empty()) return r;
      return standing_options(v, t, o);
    }
    case Verb::kRetreat: {
      string_view where = t.next();
      if (where.empty()) return usage(v);
      if (string r = area_arg(v, where, o.from); !r.empty()) return r;
      // The second word is the retreat location unless it begins an option ("CARD 3").
      Tokens ahead = t;
      const string_view to = ahead.next();
      if (!to.empty() && !is_option(to, ahead.peek())) {
        t.next();
        if (string r = area_arg(v, to, o.to); !r.empty()) return r;
      }
      return standing_options(v, t, o);
    }
    case Verb::kDefend: {
      string_view where = t.next();
      if (where.empty()) return usage(v);
      if (string r = area_arg(v, where, o.from); !r.empty()) return r;
      return standing_options(v, t, o);
    }
    case Verb::kLevy: {
      string_view where = t.next();
      if (where.empty()) return usage(v);
      if (string r = area_arg(v, where, o.from); !r.empty()) return r;
      return quantity_and_options(t, o, false);
    }
    case Verb::kOrder:
      return quantity_and_options(t, o, false);
    case Verb::kGift: {
      string_view who = t.next(), n = t.next();
      if (n.empty()) return usage(v);
      if (all_digits(who) || istarts_with(who, "AB-") || !is_code(who))
        return quote(who) + " is not a kingdom code";
      o.to = upper(string(who));
      if (string r = exact_number(n, o); !r.empty()) return r;
      return standing_options(v, t, o);
    }
    case Verb::kInvade: {
      // The turnsheet's number box is NOT USED: `-` or nothing (docs/rules/dark-age.md §1.9).
      string_view from = t.next(), to = t.next();
      if (to.empty()) return usage(v);
      if (string r = area_arg(v, from, o.from); !r.empty()) return r;
      if (string r = area_arg(v, to, o.to); !r.empty()) return r;
      if (t.peek() == "-") t.next();
      return standing_options(v, t, o);
    }
    case Verb::kMigrate: {
      string_view from = t.next(), to = t.next(), n = t.next();
      if (n.empty()) return usage(v);
      if (string r = area_arg(v, from, o.from); !r.empty()) return r;
      if (string r = area_arg(v, to, o.to); !r.empty()) return r;
      if (string r = exact_number(n, o); !r.empty()) return r;
      return standing_options(v, t, o);
    }
  }
  return usage(v);
}

}  // namespace adj::order_parse
