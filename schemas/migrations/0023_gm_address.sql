-- 0023_gm_address: the address of a game's GM (storage/press_store.h PressOptions::gm_address):
-- where messages to the GM are forwarded and what mail and pages name as the GM's address. ''
-- means the host's (adjutant serve --gm-address), or none.
ALTER TABLE press_options ADD COLUMN gm_address TEXT NOT NULL DEFAULT '';
