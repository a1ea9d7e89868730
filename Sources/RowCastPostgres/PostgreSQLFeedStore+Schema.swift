import RowCastEngine

extension PostgreSQLFeedStore {
    /// Every schema version this build knows, oldest first: version N is `migrations[N - 1]`.
    /// Never edit a released migration: add one. A database whose `rowcast.meta` names a
    /// higher version was written by a newer rowcastd and is refused.
    static let migrations: [String] = [
        // v1: what the SQLite store holds at its v7, in one schema, with a partition column on
        // feeds, and `partitions`: the lease rows a cluster's fencing check will read.
        """
        CREATE TABLE rowcast.feeds (
            name text PRIMARY KEY,
            partition integer NOT NULL,
            seq bigint NOT NULL,
            epoch text NOT NULL,
            next_arrival bigint NOT NULL,
            owner text,
            crc bigint
        );
        CREATE INDEX feeds_by_partition ON rowcast.feeds (partition);
        CREATE TABLE rowcast.sections (
            feed text NOT NULL,
            id text NOT NULL,
            sort_order double precision,
            type text,
            header text,
            declared boolean NOT NULL,
            arrival bigint NOT NULL,
            crc bigint NOT NULL,
            PRIMARY KEY (feed, id)
        );
        CREATE TABLE rowcast.items (
            feed text NOT NULL,
            id text NOT NULL,
            type text NOT NULL,
            section text NOT NULL,
            sort double precision,
            arrival bigint NOT NULL,
            json bytea NOT NULL,
            crc bigint NOT NULL,
            damage text,
            row_cell text,
            row_json bytea,
            row_crc bigint,
            PRIMARY KEY (feed, id)
        );
        CREATE TABLE rowcast.requests (
            client text NOT NULL,
            req text NOT NULL,
            ord bigint NOT NULL,
            reply bytea NOT NULL,
            crc bigint NOT NULL,
            PRIMARY KEY (client, req)
        );
        CREATE TABLE rowcast.renderers (
            kind text NOT NULL,
            type text NOT NULL,
            identity text,
            PRIMARY KEY (kind, type)
        );
        CREATE TABLE rowcast.events (
            feed text NOT NULL,
            seq bigint NOT NULL,
            body bytea NOT NULL,
            crc bigint NOT NULL,
            PRIMARY KEY (feed, seq)
        );
        CREATE TABLE rowcast.deltas (
            feed text NOT NULL,
            seq bigint NOT NULL,
            epoch text NOT NULL,
            at bigint NOT NULL,
            body bytea NOT NULL,
            crc bigint NOT NULL,
            PRIMARY KEY (feed, seq)
        );
        CREATE TABLE rowcast.quarantine (
            feed text NOT NULL,
            id text NOT NULL,
            type text NOT NULL,
            code text NOT NULL,
            reason text NOT NULL,
            plugin text NOT NULL,
            file text NOT NULL,
            at bigint NOT NULL,
            crc bigint NOT NULL,
            PRIMARY KEY (feed, id)
        );
        CREATE TABLE rowcast.partitions (
            partition integer PRIMARY KEY,
            owner text,
            token bigint NOT NULL DEFAULT 0,
            expires_at timestamptz
        );
        """,
        // v2: a cluster's tables. `nodes`: each node's heartbeat (times from the server's
        // clock); `partitions` seeded with one free lease row per partition (256, as
        // `Partition.count`, which never changes); `check_leases`: the fencing check every
        // commit of a cluster node runs first; `partition_of`: `Partition(feed:)` in SQL, for
        // the `partition` columns of `events` and `quarantine`, so a node loads its partitions'
        // rows alone.
        """
        CREATE TABLE rowcast.nodes (
            name text PRIMARY KEY,
            endpoints text NOT NULL,
            plugins text NOT NULL,
            started_at timestamptz NOT NULL,
            heartbeat_at timestamptz NOT NULL
        );
        INSERT INTO rowcast.partitions(partition, owner, token, expires_at)
            SELECT p, NULL, 0, NULL FROM generate_series(0, 255) AS p
            ON CONFLICT (partition) DO NOTHING;
        CREATE FUNCTION rowcast.partition_of(feed text) RETURNS integer
        LANGUAGE plpgsql IMMUTABLE STRICT AS $$
        DECLARE
            bytes bytea := convert_to(feed, 'UTF8');
            hash bigint := 2166136261;
        BEGIN
            FOR i IN 0 .. length(bytes) - 1 LOOP
                hash := ((hash # get_byte(bytes, i)) * 16777619) % 4294967296;
            END LOOP;
            RETURN (hash % 256)::integer;
        END $$;
        CREATE FUNCTION rowcast.check_leases(node text, parts integer[], tokens bigint[]) RETURNS void
        LANGUAGE plpgsql AS $$
        DECLARE
            current_owner text;
            current_token bigint;
        BEGIN
            -- Held until the transaction ends: a takeover's UPDATE of these rows waits for it.
            PERFORM 1 FROM rowcast.partitions WHERE partition = ANY(parts) ORDER BY partition FOR SHARE;
            FOR i IN 1 .. coalesce(array_length(parts, 1), 0) LOOP
                SELECT owner, token INTO current_owner, current_token
                    FROM rowcast.partitions WHERE partition = parts[i];
                IF NOT FOUND OR current_owner IS DISTINCT FROM node OR current_token <> tokens[i] THEN
                    RAISE EXCEPTION USING ERRCODE = 'RCF01', MESSAGE = format(
                        'partition %s is owned by %s now (this node''s lease token %s is stale)',
                        parts[i],
                        CASE WHEN current_owner IS NULL THEN 'no node' ELSE 'node ' || current_owner END,
                        tokens[i]);
                END IF;
            END LOOP;
        END $$;
        ALTER TABLE rowcast.events ADD COLUMN partition integer;
        UPDATE rowcast.events SET partition = rowcast.partition_of(feed);
        ALTER TABLE rowcast.events ALTER COLUMN partition SET NOT NULL;
        CREATE INDEX events_by_partition ON rowcast.events (partition);
        ALTER TABLE rowcast.quarantine ADD COLUMN partition integer;
        UPDATE rowcast.quarantine SET partition = rowcast.partition_of(feed);
        ALTER TABLE rowcast.quarantine ALTER COLUMN partition SET NOT NULL;
        CREATE INDEX quarantine_by_partition ON rowcast.quarantine (partition);
        """,
    ]

    /// The newest schema version this build writes.
    static var schemaVersion: Int { migrations.count }

    /// Creates the schema when absent and applies the migrations it lacks, in one transaction
    /// under a transaction advisory lock (two starts at once do not both migrate). Returns
    /// whether the store is new (no schema, or no feed yet).
    static func migrate(_ connection: PostgresConnection, url: String) throws -> Bool {
        try connection.execute("BEGIN")
        do {
            try connection.query(PostgresStatement("SELECT pg_advisory_xact_lock($1)", [.int(lockKey + 1)]))
            try connection.execute(
                """
                CREATE SCHEMA IF NOT EXISTS rowcast;
                CREATE TABLE IF NOT EXISTS rowcast.meta (key text PRIMARY KEY, value text NOT NULL);
                """)
            let rows = try connection.query(PostgresStatement("SELECT value FROM rowcast.meta WHERE key = 'schema'"))
            let stored = rows.first { _ in true }.flatMap { $0.text(0) }
            let version = stored.flatMap { Int($0) } ?? 0
            if stored != nil, version == 0 {
                throw StoreError(
                    .foreign, path: url,
                    message:
                        "the schema rowcast in \(url) is not a RowCast store (its schema version reads \"\(stored!)\"). Point --store at a database of its own."
                )
            }
            if version > schemaVersion {
                throw StoreError(
                    .newerSchema, path: url,
                    message:
                        "the PostgreSQL store \(url) has schema version \(version), written by a newer rowcastd; this one knows up to \(schemaVersion). Run the newer rowcastd, or point --store at another database."
                )
            }
            for migration in migrations.dropFirst(version) { try connection.execute(migration) }
            try connection.query(
                PostgresStatement(
                    "INSERT INTO rowcast.meta(key, value) VALUES ('schema', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [.text(String(schemaVersion))]))
            let feeds = try connection.query(PostgresStatement("SELECT 1 FROM rowcast.feeds LIMIT 1"))
            try connection.execute("COMMIT")
            return version == 0 || feeds.count == 0
        } catch {
            if !connection.isBroken { try? connection.execute("ROLLBACK") }
            throw error
        }
    }
}
