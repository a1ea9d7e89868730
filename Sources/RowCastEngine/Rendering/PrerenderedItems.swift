import RowCastPluginHosting

/// The item render jobs sent ahead of a batch's application, found again by their input's
/// identity when each item is applied.
///
/// The items of a batch's messages are applied in the order their jobs were sent, so the job
/// after the last one found is looked at first: most lookups compare two words and hash
/// nothing. Any other lookup goes through a table by identity, built when first needed, which
/// finds the job sent last for an input (as a dictionary filled in sending order would). Once
/// a second group of jobs is sent in the same batch (a quarantine retry re-rendering stored
/// items), every lookup goes through the table: an input could then have been sent twice.
struct PrerenderedItems {
    private var jobs: [(identity: JobInputIdentity, job: PrerenderedJob)] = []
    /// The job after the last one found in order.
    private var next = 0
    /// Whether lookups may take the jobs in order (one group of jobs sent so far).
    private var inOrder = true
    /// Every job's position by identity (the last sent wins); nil until a lookup needs it.
    private var positions: [JobInputIdentity: Int]?

    /// Starts recording a group of jobs sent in one call to the renderer.
    mutating func beginGroup() {
        if !jobs.isEmpty { inOrder = false }
    }

    /// Records `job`, sent for the input with `identity`.
    mutating func append(_ job: PrerenderedJob, for identity: JobInputIdentity) {
        jobs.append((identity, job))
        positions = nil
    }

    /// The job sent (last) for the input with `identity`, if any.
    mutating func job(for identity: JobInputIdentity) -> PrerenderedJob? {
        if inOrder, next < jobs.count, jobs[next].identity == identity {
            next += 1
            return jobs[next - 1].job
        }
        if positions == nil {
            var table = [JobInputIdentity: Int](minimumCapacity: jobs.count)
            for (position, entry) in jobs.enumerated() { table[entry.identity] = position }
            positions = table
        }
        return positions?[identity].map { jobs[$0].job }
    }

    /// Keeps only the jobs `isKept` says (messages carried from a parked batch still need
    /// theirs); lookups go through the table from now on.
    mutating func keep(where isKept: (PrerenderedJob) -> Bool) {
        jobs.removeAll { !isKept($0.job) }
        next = 0
        inOrder = false
        positions = nil
    }

    /// Forgets every job (the batch is applied).
    mutating func removeAll() {
        jobs.removeAll(keepingCapacity: true)
        next = 0
        inOrder = true
        positions = nil
    }
}
