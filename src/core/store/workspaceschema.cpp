#include "store/workspaceschema.h"

DatabaseSchema WorkspaceSchema::schema()
{
    DatabaseSchema s;
    s.kind = QStringLiteral("workspace");
    s.applicationId = DatabaseSchema::workspaceApplicationId;
    s.coreTables = {QStringLiteral("sessions")};
    // Times are ISO 8601 UTC text with milliseconds: readable in any SQLite shell and sortable as text.
    s.steps.append(MigrationStep{
        1,
        QStringLiteral("sessions, plans, candidates, evaluations, beams"),
        {QStringLiteral(R"(CREATE TABLE sessions (
             id TEXT PRIMARY KEY,
             task_name TEXT NOT NULL DEFAULT '',
             task_json TEXT NOT NULL DEFAULT '{}',
             target TEXT NOT NULL DEFAULT '',
             backend TEXT NOT NULL DEFAULT '',
             host TEXT NOT NULL DEFAULT '',
             config_json TEXT NOT NULL DEFAULT '{}',
             status TEXT NOT NULL DEFAULT 'running'
               CHECK (status IN ('running', 'stopped', 'finished', 'crashed')),
             created_at TEXT NOT NULL,
             updated_at TEXT NOT NULL,
             current_iteration INTEGER NOT NULL DEFAULT 0))"),
         QStringLiteral(R"(CREATE TABLE plans (
             id TEXT PRIMARY KEY,
             session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
             iteration INTEGER NOT NULL,
             parent_candidate_id TEXT REFERENCES candidates(id),
             plan_index INTEGER NOT NULL,
             title TEXT NOT NULL DEFAULT '',
             steps_json TEXT NOT NULL DEFAULT '[]',
             raw_text TEXT NOT NULL DEFAULT '',
             created_at TEXT NOT NULL))"),
         QStringLiteral("CREATE INDEX plans_by_session ON plans(session_id, iteration)"),
         QStringLiteral(R"(CREATE TABLE candidates (
             id TEXT PRIMARY KEY,
             session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
             iteration INTEGER NOT NULL,
             parent_id TEXT REFERENCES candidates(id),
             plan_id TEXT REFERENCES plans(id),
             plan_index INTEGER NOT NULL DEFAULT -1,
             sample_index INTEGER NOT NULL DEFAULT -1,
             fix_round INTEGER NOT NULL DEFAULT 0,
             origin TEXT NOT NULL CHECK (origin IN ('baseline', 'executor', 'fixer')),
             source TEXT NOT NULL,
             source_hash TEXT NOT NULL,
             created_at TEXT NOT NULL))"),
         // The natural key of a produced kernel; ids are derived from it too (SessionStore::candidateId),
         // this index is the second line of defence against a resumed session adding a twin.
         QStringLiteral("CREATE UNIQUE INDEX candidates_natural_key ON candidates(session_id, iteration, "
                        "parent_id, plan_index, sample_index, fix_round) WHERE parent_id IS NOT NULL"),
         QStringLiteral("CREATE INDEX candidates_by_session ON candidates(session_id, iteration)"),
         QStringLiteral("CREATE INDEX candidates_by_parent ON candidates(parent_id)"),
         QStringLiteral("CREATE INDEX candidates_by_hash ON candidates(session_id, source_hash)"),
         QStringLiteral(R"(CREATE TABLE evaluations (
             id INTEGER PRIMARY KEY,
             candidate_id TEXT NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
             run_index INTEGER NOT NULL DEFAULT 0,
             host TEXT NOT NULL DEFAULT '',
             status TEXT NOT NULL,
             error TEXT NOT NULL DEFAULT '',
             correct INTEGER,
             l2_rel_err REAL,
             max_abs_err REAL,
             latency_mean_ms REAL,
             latency_min_ms REAL,
             latency_max_ms REAL,
             latency_p50_ms REAL,
             rel_spread REAL,
             peak_ms REAL,
             percent_of_peak REAL,
             bound TEXT NOT NULL DEFAULT '',
             metrics_json TEXT NOT NULL DEFAULT '{}',
             raw_json TEXT NOT NULL DEFAULT '{}',
             wall_s REAL,
             attempts INTEGER NOT NULL DEFAULT 1,
             created_at TEXT NOT NULL,
             UNIQUE (candidate_id, run_index)))"),
         QStringLiteral(R"(CREATE TABLE beams (
             session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
             iteration INTEGER NOT NULL,
             position INTEGER NOT NULL,
             candidate_id TEXT NOT NULL REFERENCES candidates(id),
             PRIMARY KEY (session_id, iteration, position)))")}});
    s.steps.append(MigrationStep{
        2,
        QStringLiteral("LLM call log and resume points"),
        {QStringLiteral("ALTER TABLE sessions ADD COLUMN current_step TEXT NOT NULL DEFAULT ''"),
         QStringLiteral(R"(CREATE TABLE llm_calls (
             id INTEGER PRIMARY KEY,
             session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
             call_id INTEGER NOT NULL DEFAULT 0,
             role TEXT NOT NULL DEFAULT '',
             model TEXT NOT NULL DEFAULT '',
             endpoint TEXT NOT NULL DEFAULT '',
             tag TEXT NOT NULL DEFAULT '',
             request_json TEXT NOT NULL DEFAULT '[]',
             reply TEXT NOT NULL DEFAULT '',
             reasoning TEXT NOT NULL DEFAULT '',
             finish_reason TEXT NOT NULL DEFAULT '',
             prompt_tokens INTEGER,
             completion_tokens INTEGER,
             latency_ms INTEGER NOT NULL DEFAULT 0,
             attempts INTEGER NOT NULL DEFAULT 0,
             cost_usd REAL,
             error TEXT NOT NULL DEFAULT '',
             started_at TEXT,
             created_at TEXT NOT NULL))"),
         QStringLiteral("CREATE INDEX llm_calls_by_session ON llm_calls(session_id, role)"),
         QStringLiteral(R"(CREATE TABLE completed_steps (
             session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
             iteration INTEGER NOT NULL,
             step TEXT NOT NULL,
             completed_at TEXT NOT NULL,
             PRIMARY KEY (session_id, iteration, step)))")}});
    s.steps.append(
        MigrationStep{3,
                      QStringLiteral("what a resume needs to rerun a session, and why a session stopped"),
                      {QStringLiteral("ALTER TABLE sessions ADD COLUMN run_json TEXT NOT NULL DEFAULT '{}'"),
                       QStringLiteral("ALTER TABLE sessions ADD COLUMN stop_reason TEXT NOT NULL DEFAULT ''"),
                       QStringLiteral("CREATE INDEX llm_calls_by_tag ON llm_calls(session_id, role, tag)")}});
    // Version 4: a session can fail (an unusable starting kernel, models that refuse every call), which the
    // status CHECK of version 1 did not allow; the table is rebuilt with the same columns in the same order.
    s.steps.append(MigrationStep{
        4,
        QStringLiteral("evaluations taken over from a twin kernel; sessions that failed"),
        {QStringLiteral("ALTER TABLE evaluations ADD COLUMN reused_from TEXT"),
         QStringLiteral(R"(CREATE TABLE sessions_v4 (
             id TEXT PRIMARY KEY,
             task_name TEXT NOT NULL DEFAULT '',
             task_json TEXT NOT NULL DEFAULT '{}',
             target TEXT NOT NULL DEFAULT '',
             backend TEXT NOT NULL DEFAULT '',
             host TEXT NOT NULL DEFAULT '',
             config_json TEXT NOT NULL DEFAULT '{}',
             status TEXT NOT NULL DEFAULT 'running'
               CHECK (status IN ('running', 'stopped', 'finished', 'failed', 'crashed')),
             created_at TEXT NOT NULL,
             updated_at TEXT NOT NULL,
             current_iteration INTEGER NOT NULL DEFAULT 0,
             current_step TEXT NOT NULL DEFAULT '',
             run_json TEXT NOT NULL DEFAULT '{}',
             stop_reason TEXT NOT NULL DEFAULT ''))"),
         QStringLiteral(
             "INSERT INTO sessions_v4 (id, task_name, task_json, target, backend, host, config_json, "
             "status, created_at, updated_at, current_iteration, current_step, run_json, stop_reason) "
             "SELECT id, task_name, task_json, target, backend, host, config_json, status, created_at, "
             "updated_at, current_iteration, current_step, run_json, stop_reason FROM sessions"),
         QStringLiteral("DROP TABLE sessions"), QStringLiteral("ALTER TABLE sessions_v4 RENAME TO sessions")},
        true});
    // Version 5: a best kernel's re-measurement is run 1 of its evaluations (SessionStore::remeasureRun).
    // Every best-kernel query asks whether a kernel failed one; there are few such rows, so they get an index
    // of their own.
    s.steps.append(MigrationStep{
        5,
        QStringLiteral("an index of the best kernels' re-measurements"),
        {QStringLiteral(
            "CREATE INDEX evaluations_remeasured ON evaluations(candidate_id) WHERE run_index = 1")}});
    // Version 6 (issue 34): whether an evaluation's numbers were predicted (nkisim) or measured (a device),
    // and by which SDK, as columns, so calibration can pair the two runs of one kernel. Older rows take it
    // from the result line they kept; a row whose runner did not say stays ''.
    s.steps.append(MigrationStep{
        6,
        QStringLiteral("each evaluation's provenance: backend and SDK"),
        {QStringLiteral("ALTER TABLE evaluations ADD COLUMN backend TEXT NOT NULL DEFAULT ''"),
         QStringLiteral("ALTER TABLE evaluations ADD COLUMN sdk TEXT NOT NULL DEFAULT ''"),
         QStringLiteral("UPDATE evaluations SET backend = coalesce(json_extract(raw_json, '$.backend'), ''), "
                        "sdk = coalesce(json_extract(raw_json, '$.sdk'), '') WHERE json_valid(raw_json)"),
         QStringLiteral("CREATE INDEX evaluations_by_backend ON evaluations(backend, candidate_id)")}});
    return s;
}
