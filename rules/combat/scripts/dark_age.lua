-- Dark Age (seed 001, seed_rules.md section 1) written in Lua: losses by formula, no dice.
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

engine = {
  summary = "Dark Age (Lua): losses by formula, no dice. Attacker strength is the number of " ..
    "attacking armies; defender strength is the area's defence level (armies + population + " ..
    "forts + terrain or city bonus). MOVE fights one round at 1/2 losses, PROBE one round at " ..
    "1/3, ASSAULT fights to the finish at 1/3, OVERRUN sweeps a weak defender aside or turns " ..
    "into a costly assault.",
  deterministic = true,
  world_radius = 0,
  dark_age_actions = true,
}

function check_game(options)
  if next_key(options) ~= nil then
    return "dark-age takes no engine options (its numbers are under /rules)"
  end
end

-- The first key of t, or nil when t is empty.
function next_key(t)
  for k in pairs(t) do return k end
  return nil
end

local function formula_losses(a, d, divisor, with_difference)
  local a_loss, d_loss = d // divisor, a // divisor
  if with_difference then
    if a < d then a_loss = a_loss + (d - a) // divisor end
    if a > d then d_loss = d_loss + (a - d) // divisor end
  end
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
  local a, k = battle.attacker_armies, area.armies
  local kind = battle.kind
  local rounds = {}
  local out = { attacker_wins = false, attacker_stops = false, rounds = rounds }
  local ambush_pending = battle.ambush and kind ~= "probe"
  local round_no = 0

  -- Plays one round; returns false when nobody lost anything.
  local function play(phase, a_loss, d_loss, ambushable)
    local r = {
      phase = phase, attacker_before = a, defender_before = k,
      attacker_strength = a, defender_strength = k + fixed,
    }
    if ambushable and ambush_pending then
      r.detail = { ambush_multiplier = rules.ambush_multiplier }
      a_loss = a_loss * rules.ambush_multiplier
      ambush_pending = false
    end
    if a_loss > a then a_loss = a end
    if d_loss > k then d_loss = k end
    r.attacker_losses, r.defender_losses = a_loss, d_loss
    a, k = a - a_loss, k - d_loss
    rounds[#rounds + 1] = r
    return a_loss > 0 or d_loss > 0
  end

  local stalemate = false
  if kind == "move" then
    local al, dl = formula_losses(a, k + fixed, 2, true)
    play("move", al, dl, true)
  elseif kind == "probe" then
    local al, dl = formula_losses(a, k + fixed, 3, false)
    play("probe", al, dl, false)
    out.attacker_stops = true
  else
    local overrun = kind == "overrun"
    if overrun then
      local d = k + fixed
      local diff = math.abs(a - d) // 3
      play("overrun", a < d and diff or 0, a > d and diff or 0, false)
    else
      out.attacker_stops = true
    end
    if not overrun or (k > 0 and a > 0) then
      out.attacker_stops = true
      repeat
        if round_no >= rules.max_assault_rounds then
          stalemate = true
          break
        end
        round_no = round_no + 1
        local al, dl = formula_losses(a, k + fixed, 3, true)
        if overrun then al = al + 1 end
        if not play("round " .. round_no, al, dl, true) then
          stalemate = true
          break
        end
      until k == 0 or a == 0
    end
  end
  out.attacker_losses = battle.attacker_armies - a
  out.defender_losses = area.armies - k
  out.attacker_wins = k == 0 and a > 0
  if stalemate and k > 0 then
    local ended
    if round_no >= rules.max_assault_rounds then
      ended = "round limit reached: the attack fails"
    else
      ended = "a round without losses: the attack fails"
    end
    out.detail = { ended = ended }
  end
  return out
end
