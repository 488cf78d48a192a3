-- Dark Age (seed 001, docs/rules/dark-age.md §1) written in Lua: losses by formula, no dice.
-- Gives exactly the outcomes of the built-in "dark-age" engine (rules/combat/dark_age_engine.cc);
-- tests/rules/combat/script_engine_test.cc compares them on 10,000 random battles.
--
-- Strength: attacker = attacking armies (A); defender = the area's defence level
-- D = armies + population + fort_weight * fort + terrain bonus (city bonus for cities),
-- recomputed every round. Each term of a loss is rounded down separately:
--   MOVE     one round; each side loses opp//2, the weaker side also diff//2.
--   PROBE    one round; each side loses opp//3.
--   ASSAULT  rounds until a side is wiped out; opp//3 + diff//3 for the weaker side. A round
--            with no losses on either side ends the battle as a failed attack.
--   OVERRUN  phase 1: the weaker side loses diff//3; if defending armies remain, ASSAULT rounds
--            follow with one extra attacker loss per round.
-- An ambush multiplies the attacker's losses in the first (assault) round; PROBE is immune.
--
-- Written for speed (the chunk runs again for every call): no closures made per battle, each
-- round's table built in one constructor, rules read once into locals.

engine = {
  -- One literal (no run-time concatenation): the chunk runs again for every call.
  summary = "Dark Age (Lua): losses by formula, no dice. Attacker strength is the number of attacking armies; defender strength is the area's defence level (armies + population + forts + terrain or city bonus). MOVE fights one round at 1/2 losses, PROBE one round at 1/3, ASSAULT fights to the finish at 1/3, OVERRUN sweeps a weak defender aside or turns into a costly assault.",
  deterministic = true,
  world_radius = 0,
  dark_age_actions = true,
}

-- The first key of t, or nil when t is empty.
local function next_key(t)
  for k in pairs(t) do return k end
  return nil
end

function check_game(options)
  if next_key(options) ~= nil then
    return "dark-age takes no engine options (its numbers are under /rules)"
  end
end

-- Appends the round {phase, a, k, losses} to rounds[n]; the losses are capped by the forces and
-- the attacker's multiplied by `mult` (an ambush) when given. Returns the losses.
local function add_round(rounds, n, phase, a, k, d, a_loss, d_loss, mult)
  if mult then a_loss = a_loss * mult end
  if a_loss > a then a_loss = a end
  if d_loss > k then d_loss = k end
  local r = {
    phase = phase, attacker_before = a, defender_before = k, attacker_strength = a,
    defender_strength = d, attacker_losses = a_loss, defender_losses = d_loss,
  }
  if mult then r.detail = { ambush_multiplier = mult } end
  rounds[n] = r
  return a_loss, d_loss
end

function resolve(battle, rng)
  local world = battle.world
  local area = world:area(battle.to)
  local rules = world:rules()
  local bonus
  if area.kind == "city" then
    bonus = rules.city_bonus
  else
    bonus = rules.terrain_bonus[area.terrain] or 0
  end
  local fixed = area.population + rules.fort_weight * area.fort + bonus
  local a0, k0 = battle.attacker_armies, area.armies
  local a, k = a0, k0
  local kind = battle.kind
  local rounds = {}
  -- The ambush multiplier while the ambush has not struck yet (PROBE is immune).
  local ambush = battle.ambush and kind ~= "probe" and rules.ambush_multiplier or nil
  local stops, stalemate, round_no = false, false, 0
  local max_rounds = rules.max_assault_rounds

  if kind == "move" then
    local d = k + fixed
    local al, dl = d // 2, a // 2
    if a < d then al = al + (d - a) // 2 elseif a > d then dl = dl + (a - d) // 2 end
    al, dl = add_round(rounds, 1, "move", a, k, d, al, dl, ambush)
    a, k = a - al, k - dl
  elseif kind == "probe" then
    local d = k + fixed
    local al, dl = add_round(rounds, 1, "probe", a, k, d, d // 3, a // 3, nil)
    a, k = a - al, k - dl
    stops = true
  else
    local overrun = kind == "overrun"
    local n = 0
    if overrun then
      local d = k + fixed
      local diff = (a < d and d - a or a - d) // 3
      n = 1
      local al, dl = add_round(rounds, 1, "overrun", a, k, d, a < d and diff or 0,
                               a > d and diff or 0, nil)
      a, k = a - al, k - dl
    end
    if not overrun or (k > 0 and a > 0) then
      stops = true
      local extra = overrun and 1 or 0
      repeat
        if round_no >= max_rounds then
          stalemate = true
          break
        end
        round_no = round_no + 1
        local d = k + fixed
        local al, dl = d // 3 + extra, a // 3
        if a < d then al = al + (d - a) // 3 elseif a > d then dl = dl + (a - d) // 3 end
        n = n + 1
        al, dl = add_round(rounds, n, "round " .. round_no, a, k, d, al, dl, ambush)
        ambush = nil
        a, k = a - al, k - dl
        if al <= 0 and dl <= 0 then
          stalemate = true
          break
        end
      until k == 0 or a == 0
    end
  end
  local out = {
    attacker_wins = k == 0 and a > 0, attacker_losses = a0 - a, defender_losses = k0 - k,
    attacker_stops = stops, rounds = rounds,
  }
  if stalemate and k > 0 then
    if round_no >= max_rounds then
      out.detail = { ended = "round limit reached: the attack fails" }
    else
      out.detail = { ended = "a round without losses: the attack fails" }
    end
  end
  return out
end
