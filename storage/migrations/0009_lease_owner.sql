-- The owner of a processing job's lease: the id of the open Store (one per
-- process, see lease.go) that claimed it; '' for a job claimed before this
-- column existed, or not processing. A process holds an flock on
-- leases/<owner>.lock in the data dir while its store is open, and the
-- operating system drops it when the process dies, so the next Open (or the
-- worker's maintenance in a live process) returns a dead owner's jobs to
-- pending at once, without waiting for the lease, and without counting the
-- cut-off attempt. A claim is fenced by its owner and attempt number.
ALTER TABLE jobs ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
