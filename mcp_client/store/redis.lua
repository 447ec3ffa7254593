-- The Redis engine's scripts (mcp_client.store._redis): one script per operation,
-- each run atomically by the one primary.  The text before the first "-- @op" line
-- is the shared prelude; the module sends it ahead of every operation's body.
--
-- Times are integer microseconds of the server's TIME, kept as decimal strings
-- (Lua 5.1 numbers print with 14 digits).  A path travels with its case-folded
-- form (Python's str.casefold, per segment), so the overlap rule below is the one
-- of mcp_client.paths.contains: containment by segments, a case-only match is
-- unknown (a conflict), and a glob segment that may match is unknown.  The one
-- place it is wider than Python is a bracket glob ("[a-z]"): any pattern with "["
-- counts as matching (a conflict), which fails closed.

-- Redis 5 and 6 replicate a script's effects only when asked (7 always does): TIME
-- is read before writes, which verbatim replication would refuse.
if redis.replicate_commands then redis.replicate_commands() end

local function now_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local function us(n) return string.format('%.0f', n) end

local function split(p)
  local out = {}
  for seg in string.gmatch(p, '[^/]+') do out[#out + 1] = seg end
  return out
end

-- UTF-8 text to code points (a stray byte stands for itself).
local function cps(s)
  local out, i, n = {}, 1, #s
  while i <= n do
    local c = string.byte(s, i)
    local len, cp = 1, c
    if c >= 240 then len, cp = 4, c % 8
    elseif c >= 224 then len, cp = 3, c % 16
    elseif c >= 192 then len, cp = 2, c % 32 end
    if i + len - 1 > n then len, cp = 1, c end
    for k = i + 1, i + len - 1 do cp = cp * 64 + string.byte(s, k) % 64 end
    out[#out + 1] = cp
    i = i + len
  end
  return out
end

-- fnmatchcase for '*' and '?' over code points (the whole name).
local function globmatch(pat, name)
  local p, n, star, mark = 1, 1, 0, 0
  while n <= #name do
    if p <= #pat and (pat[p] == 63 or (pat[p] ~= 42 and pat[p] == name[n])) then
      p, n = p + 1, n + 1
    elseif p <= #pat and pat[p] == 42 then
      star, mark, p = p, n, p + 1
    elseif star > 0 then
      p, mark = star + 1, mark + 1
      n = mark
    else
      return false
    end
  end
  while p <= #pat and pat[p] == 42 do p = p + 1 end
  return p > #pat
end

local function has_glob(seg) return string.find(seg, '[%*%?%[{]') ~= nil end

local function seg_may_match(raw, fold, name_fold)
  if string.find(raw, '**', 1, true) or string.find(raw, '{', 1, true) then return true end
  if string.find(fold, '[', 1, true) then return true end   -- brackets: fail closed
  return globmatch(cps(fold), cps(name_fold))
end

-- 0 NO, 1 UNKNOWN, 2 YES: is path (with its fold) inside dir (with its fold)?
local function contains(dir, dirf, path, pathf)
  local outer, outerf, inner, innerf = split(dir), split(dirf), split(path), split(pathf)
  if #outer ~= #outerf or #inner ~= #innerf then return 1 end
  local globbed, n = false, math.min(#inner, #outer)
  for i = 1, n do
    local part = inner[i]
    if part ~= outer[i] then
      if not has_glob(part) or not seg_may_match(part, innerf[i], outerf[i]) then
        globbed = nil
        break
      end
      if string.find(part, '**', 1, true) then return 1 end
      globbed = true
    end
  end
  if globbed and #inner >= #outer then return 1 end
  if #inner < #outer then return 0 end
  local same, samef = true, true
  for i = 1, #outer do
    if inner[i] ~= outer[i] then same = false end
    if innerf[i] ~= outerf[i] then samef = false end
  end
  if same then return 2 end
  if samef then return 1 end
  return 0
end

-- whether a held place and a wanted path may conflict (false: could be anything)
local function meets(place, placef, path, pathf)
  if place == false or path == false then return true end
  return contains(place, placef, path, pathf) ~= 0 or contains(path, pathf, place, placef) ~= 0
end

local function by_order(a, b)
  if a.t ~= b.t then return a.t < b.t end
  return a.i < b.i
end

local function leases(key)
  local all, flat = {}, redis.call('HGETALL', key)
  for k = 1, #flat, 2 do
    local lease = cjson.decode(flat[k + 1])
    lease.path = flat[k]
    all[#all + 1] = lease
  end
  table.sort(all, by_order)
  return all
end

local function holds(key)
  local all, flat = {}, redis.call('HGETALL', key)
  for k = 1, #flat, 2 do
    local hold = cjson.decode(flat[k + 1])
    hold.id = tonumber(flat[k])
    all[#all + 1] = hold
  end
  table.sort(all, function(a, b) return a.id < b.id end)
  return all
end

local function lease_record(l) return {l.path, l.h, l.s, l.e, false, l.t} end

local function hold_record(h, at)
  local place = h.p[at]
  if place == false then place = '*' end
  return {place, h.h, h.s, 'inf', true, 0}
end

-- KEYS: 1 leases, 2 holds, 3 fencing counter, 4 version, 5 hold counter
-- Drops expired leases and the holds the caller found dead (ids in a JSON list).
local function purge(now, dead)
  for _, l in ipairs(leases(KEYS[1])) do
    if tonumber(l.e) <= now then redis.call('HDEL', KEYS[1], l.path) end
  end
  local gone = 0
  for _, id in ipairs(cjson.decode(dead)) do gone = gone + redis.call('HDEL', KEYS[2], id) end
  if gone > 0 then redis.call('INCR', KEYS[4]) end
end

local function in_the_way(holder, path, pathf)
  for _, l in ipairs(leases(KEYS[1])) do
    if l.h ~= holder and meets(l.path, l.f, path, pathf) then return lease_record(l) end
  end
  for _, h in ipairs(holds(KEYS[2])) do
    if h.h ~= holder then
      for at = 1, #h.p do
        if meets(h.p[at], h.f[at], path, pathf) then return hold_record(h, at) end
      end
    end
  end
  return nil
end

local function covers(holder, path, pathf)
  for _, l in ipairs(leases(KEYS[1])) do
    if l.h == holder and contains(l.path, l.f, path, pathf) == 2 then return true end
  end
  return false
end

local function answer(value)
  return cjson.encode({value, redis.call('GET', KEYS[4]) or '0'})
end

-- @op acquire  ARGV: holder, ttl (us), wanted [[path, fold]...], dead holds
local now = now_us()
purge(now, ARGV[4])
local holder, ttl, wanted = ARGV[1], tonumber(ARGV[2]), cjson.decode(ARGV[3])
for _, w in ipairs(wanted) do
  local blocker = in_the_way(holder, w[1], w[2])
  if blocker then return answer(blocker) end
end
local fresh, seen = {}, {}
for _, w in ipairs(wanted) do
  local raw = redis.call('HGET', KEYS[1], w[1])
  if raw then
    local l = cjson.decode(raw)
    l.e = us(now + ttl)
    redis.call('HSET', KEYS[1], w[1], cjson.encode(l))
  elseif not seen[w[1]] then
    seen[w[1]] = true
    fresh[#fresh + 1] = w
  end
end
if #fresh > 0 then
  local token = redis.call('INCR', KEYS[3])
  for i, w in ipairs(fresh) do
    redis.call('HSET', KEYS[1], w[1], cjson.encode(
      {h = holder, s = us(now), e = us(now + ttl), t = token, i = i, f = w[2]}))
  end
end
return answer(false)

-- @op release  ARGV: holder, released (JSON list, or false for all), dead holds
purge(now_us(), ARGV[3])
local holder, released, wanted = ARGV[1], cjson.decode(ARGV[2]), nil
if released ~= false then
  wanted = {}
  for _, p in ipairs(released) do wanted[p] = true end
end
local freed = {}
for _, l in ipairs(leases(KEYS[1])) do
  if l.h == holder and (wanted == nil or wanted[l.path]) then
    redis.call('HDEL', KEYS[1], l.path)
    freed[#freed + 1] = l.path
  end
end
redis.call('INCR', KEYS[4])
return answer(freed)

-- @op release_all
redis.call('DEL', KEYS[1])
redis.call('INCR', KEYS[4])
return answer(false)

-- @op leases  ARGV: dead holds
purge(now_us(), ARGV[1])
local out = {}
for _, l in ipairs(leases(KEYS[1])) do out[#out + 1] = lease_record(l) end
return answer(out)

-- @op holds  ARGV: dead holds
purge(now_us(), ARGV[1])
local out = {}
for _, h in ipairs(holds(KEYS[2])) do
  for at = 1, #h.p do out[#out + 1] = hold_record(h, at) end
end
return answer(out)

-- @op blocking  ARGV: holder, [path, fold] or false, dead holds
purge(now_us(), ARGV[3])
local w = cjson.decode(ARGV[2])
if w == false then return answer(in_the_way(ARGV[1], false, false) or false) end
return answer(in_the_way(ARGV[1], w[1], w[2]) or false)

-- @op covers  ARGV: holder, path, fold, dead holds
purge(now_us(), ARGV[4])
return answer(covers(ARGV[1], ARGV[2], ARGV[3]))

-- @op hold  ARGV: holder, places [[path, fold] or false...], strict, stamp (JSON), dead holds
local now = now_us()
purge(now, ARGV[5])
local holder, places, strict = ARGV[1], cjson.decode(ARGV[2]), ARGV[3] == '1'
local raw, folds = {}, {}
for at, w in ipairs(places) do
  local path, pathf = false, false
  if w ~= false then path, pathf = w[1], w[2] end
  raw[at], folds[at] = path, pathf
  local blocker = in_the_way(holder, path, pathf)
  if blocker then return answer({at - 1, blocker}) end
  if strict and (path == false or not covers(holder, path, pathf)) then
    return answer({at - 1, false})
  end
end
local id = redis.call('INCR', KEYS[5])
local stamp = cjson.decode(ARGV[4])
stamp.h, stamp.p, stamp.f, stamp.s = holder, raw, folds, us(now)
redis.call('HSET', KEYS[2], id, cjson.encode(stamp))
return answer({id, us(now)})

-- @op end_hold  ARGV: key
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('INCR', KEYS[4])
return answer(false)

-- @op put_task  KEYS: tasks, task counter  ARGV: field, task JSON (without times)
local now = us(now_us())
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local task = cjson.decode(ARGV[2])
if raw then
  local old = cjson.decode(raw)
  old.status, old.updated = task.status, now
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(old))
else
  task.created, task.updated, task.n = now, now, redis.call('INCR', KEYS[2])
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(task))
end
return '1'

-- @op book_add  KEYS: rules, counter, history  ARGV: [[key, rule JSON, record JSON]...]
local added = {}
for _, item in ipairs(cjson.decode(ARGV[1])) do
  if redis.call('HEXISTS', KEYS[1], item[1]) == 0 then
    local n = redis.call('INCR', KEYS[2])
    redis.call('HSET', KEYS[1], item[1], cjson.encode({n = n, r = item[2]}))
    redis.call('RPUSH', KEYS[3], item[3])
    added[#added + 1] = item[2]
  end
end
return cjson.encode(added)

-- @op book_revoke  KEYS: rules, counter, history  ARGV: index (or -1), key, record JSON
local all, flat = {}, redis.call('HGETALL', KEYS[1])
for k = 1, #flat, 2 do
  local g = cjson.decode(flat[k + 1])
  g.key = flat[k]
  all[#all + 1] = g
end
table.sort(all, function(a, b) return a.n < b.n end)
local index, found = tonumber(ARGV[1]), nil
if index >= 0 then
  found = all[index + 1]
else
  for _, g in ipairs(all) do if g.key == ARGV[2] then found = g end end
end
if not found then return false end
redis.call('HDEL', KEYS[1], found.key)
local decision = cjson.decode(found.r).decision
if decision == nil then decision = 'null' else decision = cjson.encode(decision) end
local record = string.gsub(ARGV[3], '"@RULE@"', function() return found.r end)
record = string.gsub(record, '"@DECISION@"', function() return decision end)
redis.call('RPUSH', KEYS[3], record)
return found.r

-- @op question_acquire  KEYS: lease  ARGV: host, pid, thread, nonce, ttl (us), gone nonce
local now = now_us()
local held = redis.call('HMGET', KEYS[1], 'host', 'pid', 'thread', 'nonce', 'expires')
if held[4] then
  local mine = held[1] == ARGV[1] and held[2] == ARGV[2] and held[3] == ARGV[3]
    and held[4] == ARGV[4]
  if not (mine or tonumber(held[5]) <= now or held[4] == ARGV[6]) then return 0 end
end
redis.call('HSET', KEYS[1], 'host', ARGV[1], 'pid', ARGV[2], 'thread', ARGV[3],
  'nonce', ARGV[4], 'expires', us(now + tonumber(ARGV[5])))
return 1

-- @op question_renew  KEYS: lease  ARGV: nonce, ttl (us)
if redis.call('HGET', KEYS[1], 'nonce') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'expires', us(now_us() + tonumber(ARGV[2])))
return 1

-- @op question_release  KEYS: lease  ARGV: nonce
if redis.call('HGET', KEYS[1], 'nonce') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1

-- @op question_held  KEYS: lease  (the holder if its lease has not run out)
local held = redis.call('HMGET', KEYS[1], 'host', 'pid', 'thread', 'nonce', 'expires')
if not held[4] or tonumber(held[5]) <= now_us() then return false end
return {held[1], held[2], held[3], held[4]}
