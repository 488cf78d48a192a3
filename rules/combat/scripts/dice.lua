-- Dice: a Risk-style engine with dice, an example of a combat engine written in Lua.
--
-- Each round the attacker rolls one six-sided die per attacking army, at most 3, and the defender
-- one per defending army, at most 2 (2 more dice, at most 4, behind a fort; a city adds 1 die).
-- Both sides sort their dice, highest first, and compare them pairwise: for each pair the side
-- with the lower die loses one army; the defender wins ties (the attacker wins them on OVERRUN).
--   MOVE     up to 3 rounds; PROBE one round; ASSAULT and OVERRUN until one side is gone (at most
--            the rules' max_assault_rounds). An ambush gives the defender one extra die in the
--            first round (not against PROBE). A river between the sides takes one die from the
--            attacker (never below one).
-- The attacker wins when no defending army remains and attackers survive. Survivors of ASSAULT
-- and PROBE stop for the turn.

engine = {
  summary = "Dice (Lua example): Risk-style dice. Each round the attacker rolls up to 3 dice, " ..
    "the defender up to 2 (more behind forts and in cities); dice are compared highest first " ..
    "and each lower die costs an army, the defender winning ties. MOVE fights up to 3 rounds, " ..
    "PROBE one, ASSAULT and OVERRUN to the finish.",
  deterministic = false,
  world_radius = 0,
}

local function roll(rng, n)
  local dice = {}
  for i = 1, n do dice[i] = rng:die(6) end
  table.sort(dice, function(x, y) return x > y end)
  return dice
end

function resolve(battle, rng)
  local world = battle.world
  local area = world:area(battle.to)
  local rules = world:rules()
  local kind = battle.kind
  local a, k = battle.attacker_armies, area.armies
  local river = false
  for _, g in ipairs(battle.groups) do
    local edge = world:edge(g.from, battle.to)
    if edge and edge.features.river then river = true end
  end
  local max_rounds = rules.max_assault_rounds
  if kind == "move" then max_rounds = 3 elseif kind == "probe" then max_rounds = 1 end
  local rounds = {}
  local round_no = 0
  while a > 0 and k > 0 and round_no < max_rounds do
    round_no = round_no + 1
    local a_n = math.min(a, 3)
    if river and a_n > 1 then a_n = a_n - 1 end
    local d_max = 2
    if area.fort > 0 then d_max = 4 end
    if area.kind == "city" then d_max = d_max + 1 end
    local d_n = math.min(k, d_max)
    local ambushed = round_no == 1 and battle.ambush and kind ~= "probe"
    if ambushed then d_n = d_n + 1 end
    local ad, dd = roll(rng, a_n), roll(rng, d_n)
    local al, dl = 0, 0
    for i = 1, math.min(#ad, #dd) do
      if ad[i] > dd[i] or (kind == "overrun" and ad[i] == dd[i]) then
        dl = dl + 1
      else
        al = al + 1
      end
    end
    if al > a then al = a end
    if dl > k then dl = k end
    local r = {
      phase = "round " .. round_no, attacker_before = a, defender_before = k,
      attacker_strength = a_n, defender_strength = d_n,
      attacker_losses = al, defender_losses = dl, attacker_dice = ad, defender_dice = dd,
    }
    if ambushed or river then r.detail = { ambush = ambushed, river = river } end
    rounds[#rounds + 1] = r
    a, k = a - al, k - dl
  end
  return {
    attacker_wins = k == 0 and a > 0,
    attacker_losses = battle.attacker_armies - a,
    defender_losses = area.armies - k,
    attacker_stops = kind == "assault" or kind == "probe",
    rounds = rounds,
  }
end
