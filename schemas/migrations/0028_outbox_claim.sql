-- 0028_outbox_claim: the outbox's due index also holds each message's kind and lease, so a claim
-- (SqlStore::claim, storage/core/sql_store_mail.cc) chooses its batch from the index alone. It
-- orders the due messages by kind first (refusals and help answers ahead), which the index of
-- 0003 could not give: the claim read the row of every message due, and a report mail's row is a
-- page of its own. With 5,000 report mails queued (a host's busiest minute), a claim took 30-46 ms
-- of reads instead of 1-5 ms (docs/performance.md). The old index is a prefix of the new one.
DROP INDEX outbox_due;
CREATE INDEX outbox_due ON outbox(state, next_attempt_at, kind, lease_until);
