#include "common/datapaths.h"
#include "memory/experiencestore.h"
#include "memory/memoryschema.h"
#include "store/database.h"
#include "store/sessionstore.h"
#include "store/workspaceschema.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

class TestDatabase : public QObject
{
    Q_OBJECT

    static QByteArray fileHash(const QString &path)
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
    }

    static void writeFile(const QString &path, const QByteArray &bytes)
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
    }

    static QVariant scalar(Database &db, const QString &sql)
    {
        QSqlQuery q(db.connection());
        if (!q.exec(sql) || !q.next())
            return {};
        return q.value(0);
    }

    // Opens `path` as a workspace and expects a refusal that mentions `expected`, with the bytes untouched
    // and no journal or WAL left next to the file.
    static void expectRefused(const QString &path, const QString &expected)
    {
        const QByteArray before = fileHash(path);
        SessionStore store(path);
        QVERIFY(!store.open());
        QVERIFY2(store.lastError().contains(expected), qPrintable(store.lastError()));
        QVERIFY2(store.lastError().contains(QStringLiteral("left untouched")), qPrintable(store.lastError()));
        QCOMPARE(fileHash(path), before);
        QVERIFY(!QFile::exists(path + QStringLiteral("-wal")));
        QVERIFY(!QFile::exists(path + QStringLiteral("-journal")));
    }

    // Runs `sql` on the file through a connection of its own, as another program would.
    static void plant(const QString &path, const QStringList &sql)
    {
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("planter"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery q(db);
            for (const QString &statement : sql)
                QVERIFY2(q.exec(statement), qPrintable(q.lastError().text()));
            q.finish();
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("planter"));
    }

    static int mode(const QString &path)
    {
        struct stat st;
        return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 0777) : -1;
    }

private Q_SLOTS:
    void createsSchemaWithWalAndForeignKeys()
    {
        QTemporaryDir dir;
        Database db(WorkspaceSchema::schema());
        QString error;
        QVERIFY2(db.open(dir.filePath(QStringLiteral("sub/ws.sqlite")), error), qPrintable(error));
        QCOMPARE(db.schemaVersion(), WorkspaceSchema::schema().latestVersion());
        QCOMPARE(scalar(db, QStringLiteral("PRAGMA journal_mode")).toString(), QStringLiteral("wal"));
        QCOMPARE(scalar(db, QStringLiteral("PRAGMA foreign_keys")).toInt(), 1);
        QCOMPARE(scalar(db, QStringLiteral("PRAGMA busy_timeout")).toInt(), Database::busyTimeoutMs);
        QCOMPARE(scalar(db, QStringLiteral("PRAGMA application_id")).toInt(),
                 DatabaseSchema::workspaceApplicationId);
        QCOMPARE(scalar(db, QStringLiteral("PRAGMA user_version")).toInt(), db.schemaVersion());
        for (const char *table :
             {"sessions", "plans", "candidates", "evaluations", "beams", "llm_calls", "completed_steps"})
            QVERIFY2(scalar(db, QStringLiteral("SELECT count(*) FROM sqlite_master WHERE name = '%1'")
                                    .arg(QLatin1String(table)))
                             .toInt() == 1,
                     table);
    }

    void twoInstancesOnOneFileHaveTheirOwnConnections()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("ws.sqlite"));
        Database a(WorkspaceSchema::schema()), b(WorkspaceSchema::schema());
        QString error;
        QVERIFY(a.open(path, error));
        QVERIFY(b.open(path, error));
        QVERIFY(a.connection().connectionName() != b.connection().connectionName());
        b.close();
        QVERIFY(a.isOpen());
        QCOMPARE(scalar(a, QStringLiteral("SELECT count(*) FROM sessions")).toInt(), 0);
    }

    void migratesAVersion1File()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v1.sqlite"));
        {
            // A frozen, hand-written copy of schema version 1 with one session in it.
            QSqlDatabase db =
                QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v1writer"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery q(db);
            const QStringList v1{
                QStringLiteral("PRAGMA application_id = %1").arg(DatabaseSchema::workspaceApplicationId),
                QStringLiteral(
                    "CREATE TABLE sessions (id TEXT PRIMARY KEY, task_name TEXT NOT NULL DEFAULT '', "
                    "task_json TEXT NOT NULL DEFAULT '{}', target TEXT NOT NULL DEFAULT '', backend TEXT NOT "
                    "NULL DEFAULT '', host TEXT NOT NULL DEFAULT '', config_json TEXT NOT NULL DEFAULT '{}', "
                    "status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'stopped', "
                    "'finished', 'crashed')), created_at TEXT NOT NULL, updated_at TEXT NOT NULL, "
                    "current_iteration INTEGER NOT NULL DEFAULT 0)"),
                QStringLiteral(
                    "CREATE TABLE plans (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES "
                    "sessions(id) ON DELETE CASCADE, iteration INTEGER NOT NULL, parent_candidate_id TEXT "
                    "REFERENCES candidates(id), plan_index INTEGER NOT NULL, title TEXT NOT NULL DEFAULT '', "
                    "steps_json TEXT NOT NULL DEFAULT '[]', raw_text TEXT NOT NULL DEFAULT '', created_at "
                    "TEXT NOT NULL)"),
                QStringLiteral(
                    "CREATE TABLE candidates (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES "
                    "sessions(id) ON DELETE CASCADE, iteration INTEGER NOT NULL, parent_id TEXT REFERENCES "
                    "candidates(id), plan_id TEXT REFERENCES plans(id), plan_index INTEGER NOT NULL DEFAULT "
                    "-1, sample_index INTEGER NOT NULL DEFAULT -1, fix_round INTEGER NOT NULL DEFAULT 0, "
                    "origin TEXT NOT NULL CHECK (origin IN ('baseline', 'executor', 'fixer')), source TEXT "
                    "NOT NULL, source_hash TEXT NOT NULL, created_at TEXT NOT NULL)"),
                QStringLiteral(
                    "CREATE TABLE evaluations (id INTEGER PRIMARY KEY, candidate_id TEXT NOT NULL "
                    "REFERENCES candidates(id) ON DELETE CASCADE, run_index INTEGER NOT NULL DEFAULT 0, host "
                    "TEXT NOT NULL DEFAULT '', status TEXT NOT NULL, error TEXT NOT NULL DEFAULT '', correct "
                    "INTEGER, l2_rel_err REAL, max_abs_err REAL, latency_mean_ms REAL, latency_min_ms REAL, "
                    "latency_max_ms REAL, latency_p50_ms REAL, rel_spread REAL, peak_ms REAL, "
                    "percent_of_peak REAL, bound TEXT NOT NULL DEFAULT '', metrics_json TEXT NOT NULL "
                    "DEFAULT '{}', raw_json TEXT NOT NULL DEFAULT '{}', wall_s REAL, attempts INTEGER NOT "
                    "NULL DEFAULT 1, created_at TEXT NOT NULL, UNIQUE (candidate_id, run_index))"),
                QStringLiteral(
                    "CREATE TABLE beams (session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE "
                    "CASCADE, iteration INTEGER NOT NULL, position INTEGER NOT NULL, candidate_id TEXT NOT "
                    "NULL REFERENCES candidates(id), PRIMARY KEY (session_id, iteration, position))"),
                QStringLiteral("INSERT INTO sessions (id, task_name, status, created_at, updated_at, "
                               "current_iteration) VALUES ('old-session', 'silu', 'stopped', "
                               "'2025-01-02T03:04:05.000Z', '2025-01-02T03:04:05.000Z', 3)"),
                // Rows that refer to the session: rebuilding the sessions table (version 4) must keep them.
                QStringLiteral(
                    "INSERT INTO candidates (id, session_id, iteration, origin, source, source_hash, "
                    "created_at) VALUES ('old-base', 'old-session', 0, 'baseline', 'def kernel(): "
                    "pass', 'h', '2025-01-02T03:04:05.000Z')"),
                QStringLiteral("INSERT INTO evaluations (candidate_id, status, correct, latency_mean_ms, "
                               "raw_json, created_at) VALUES ('old-base', 'ok', 1, 2.5, '{\"backend\": "
                               "\"neuron\", \"sdk\": \"Neuron SDK 2.33\"}', '2025-01-02T03:04:05.000Z')"),
                QStringLiteral("INSERT INTO beams (session_id, iteration, position, candidate_id) VALUES "
                               "('old-session', 0, 0, 'old-base')"),
                QStringLiteral("PRAGMA user_version = 1")};
            for (const QString &sql : v1)
                QVERIFY2(q.exec(sql), qPrintable(sql));
            q.finish();
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v1writer"));

        SessionStore store(path);
        QVERIFY2(store.open(), qPrintable(store.lastError()));
        QCOMPARE(store.database().schemaVersion(), WorkspaceSchema::schema().latestVersion());
        const auto s = store.session(QStringLiteral("old-session"));
        QVERIFY(s);
        QCOMPARE(s->taskName, QStringLiteral("silu"));
        QCOMPARE(s->status, SessionRecord::Status::Stopped);
        QCOMPARE(s->currentIteration, 3);
        QCOMPARE(s->currentStep, QString());
        QVERIFY(s->run.isEmpty()); // sessions from before version 3 have no run settings
        // The new tables work.
        QVERIFY(store.markStepCompleted(QStringLiteral("old-session"), 3, ResumeStep::Plan));
        QVERIFY(store.isStepCompleted(QStringLiteral("old-session"), 3, ResumeStep::Plan));
        QVERIFY(store.recordLlmCall(QStringLiteral("old-session"), LlmCallRecord{}));
        // Version 4 kept everything that refers to the session, and lets a session fail.
        QCOMPARE(store.candidates(QStringLiteral("old-session")).size(), 1);
        QCOMPARE(store.evaluation(QStringLiteral("old-base"))->latencyMeanMs, 2.5);
        QVERIFY(store.evaluation(QStringLiteral("old-base"))->reusedFrom.isEmpty());
        // Version 6 took each evaluation's provenance from the result line it kept (issue 34).
        QCOMPARE(store.evaluation(QStringLiteral("old-base"))->backend, QStringLiteral("neuron"));
        QCOMPARE(store.evaluation(QStringLiteral("old-base"))->sdk, QStringLiteral("Neuron SDK 2.33"));
        QCOMPARE(store.evaluation(QStringLiteral("old-base"))->provenance(), QStringLiteral("hardware"));
        QCOMPARE(store.beam(QStringLiteral("old-session"), 0), QStringList{QStringLiteral("old-base")});
        QVERIFY(store.setStatus(QStringLiteral("old-session"), SessionRecord::Status::Failed,
                                QStringLiteral("failed")));
        QCOMPARE(store.session(QStringLiteral("old-session"))->status, SessionRecord::Status::Failed);
        QSqlQuery check(store.database().connection());
        QVERIFY(check.exec(QStringLiteral("PRAGMA foreign_keys")) && check.next());
        QCOMPARE(check.value(0).toInt(), 1); // switched back on after the rebuild
    }

    void secondOpenInOneProcessKeepsTheFirstsLocks()
    {
        // Regression: the workbench's engine had the workspace open, a second SessionStore in the same
        // process opened and closed it (reading its header through QFile, which drops every POSIX lock the
        // process held on the file), and `accelopt resume` in another process then checkpointed the
        // write-ahead log away under the engine's connection: the engine saw stale data and the file was
        // damaged.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("ws.sqlite"));
        SessionStore first(path);
        QVERIFY(first.open());
        SessionRecord s;
        s.taskName = QStringLiteral("silu");
        QVERIFY(first.createSession(s));
        QCOMPARE(first.sessions().size(), 1);
        {
            SessionStore second(path);
            QVERIFY2(second.open(), qPrintable(second.lastError()));
            QCOMPARE(second.sessions().size(), 1);
        }
        // Another process writes, checkpoints and closes, as the CLI does.
        QProcess writer;
        writer.start(QStringLiteral(ACCELOPT_TEST_PYTHON),
                     {QStringLiteral("-c"),
                      QStringLiteral("import sqlite3, sys\n"
                                     "db = sqlite3.connect(sys.argv[1], timeout=5)\n"
                                     "db.execute(\"UPDATE sessions SET current_iteration = 7\")\n"
                                     "db.commit()\n"
                                     "db.execute('PRAGMA wal_checkpoint(TRUNCATE)')\n"
                                     "db.close()\n"),
                      path});
        QVERIFY(writer.waitForFinished(30000));
        QVERIFY2(writer.exitCode() == 0, writer.readAllStandardError().constData());
        QCOMPARE(first.sessions().first().currentIteration, 7); // sees the other process's write
        QVERIFY(first.setStatus(s.id, SessionRecord::Status::Stopped));
        SessionStore again(path);
        QVERIFY2(again.open(), qPrintable(again.lastError())); // and the file is whole
        QCOMPARE(again.session(s.id)->status, SessionRecord::Status::Stopped);
        QCOMPARE(again.session(s.id)->currentIteration, 7);
    }

    void reopenKeepsData()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("ws.sqlite"));
        SessionRecord s;
        s.taskName = QStringLiteral("silu");
        {
            SessionStore store(path);
            QVERIFY(store.open());
            QVERIFY(store.createSession(s));
        }
        SessionStore again(path);
        QVERIFY(again.open());
        QCOMPARE(again.sessions().size(), 1);
        QCOMPARE(again.sessions().first().id, s.id);
    }

    void refusesRandomBytes()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("random.sqlite"));
        QByteArray bytes(8192, '\0');
        QRandomGenerator gen(42);
        for (char &b : bytes)
            b = static_cast<char>(gen.bounded(256));
        writeFile(path, bytes);
        expectRefused(path, QStringLiteral("is not an AccelOpt workspace database or is damaged"));
    }

    void refusesATextFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("notes.txt"));
        writeFile(path, QByteArray("These are my notes, not a database.\n").repeated(50));
        expectRefused(path, QStringLiteral("not an SQLite database"));
    }

    void refusesATruncatedDatabase()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("ws.sqlite"));
        {
            SessionStore store(path);
            QVERIFY(store.open());
            for (int i = 0; i < 40; ++i) {
                SessionRecord s;
                s.taskName = QStringLiteral("task %1").arg(i);
                s.config = QJsonObject{{QStringLiteral("padding"), QString(2000, u'x')}};
                QVERIFY(store.createSession(s));
            }
        }
        QVERIFY(!QFile::exists(path + QStringLiteral("-wal")) ||
                QFileInfo(path + QStringLiteral("-wal")).size() == 0);
        QFile f(path);
        QVERIFY(f.size() > 8192);
        QVERIFY(f.resize(f.size() / 2 + 100)); // mid-page, as a broken copy would leave it
        f.close();
        expectRefused(path, QStringLiteral("truncated"));

        QVERIFY(
            f.resize((QFileInfo(path).size() / 4096) * 4096)); // whole pages, but fewer than the header says
        expectRefused(path, QStringLiteral("truncated"));
    }

    void refusesANewerSchema()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("future.sqlite"));
        {
            SessionStore store(path);
            QVERIFY(store.open());
            QString error;
            QVERIFY(store.database().execute(QStringLiteral("PRAGMA user_version = 99"), error));
        }
        const QByteArray before = fileHash(path);
        SessionStore store(path);
        QVERIFY(!store.open());
        QVERIFY2(store.lastError().contains(QStringLiteral("newer AccelOpt")), qPrintable(store.lastError()));
        QVERIFY(store.lastError().contains(QStringLiteral("99")));
        QCOMPARE(fileHash(path), before);
    }

    void refusesTheOtherKindAndForeignDatabases()
    {
        QTemporaryDir dir;
        const QString memoryPath = dir.filePath(QStringLiteral("memory.sqlite"));
        {
            Database memory(MemorySchema::schema());
            QString error;
            QVERIFY(memory.open(memoryPath, error));
        }
        expectRefused(memoryPath, QStringLiteral("AccelOpt memory database"));

        const QString foreign = dir.filePath(QStringLiteral("foreign.sqlite"));
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("foreign"));
            db.setDatabaseName(foreign);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("CREATE TABLE photos (id INTEGER)")));
            q.finish();
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("foreign"));
        expectRefused(foreign, QStringLiteral("another application"));
    }

    // What the program did not create runs inside its writes (issue 33: a planted trigger deleted 5 of 6
    // sessions during a run): such a file is refused, naming it, and left untouched.
    void refusesObjectsItDidNotCreate_data()
    {
        QTest::addColumn<QString>("sql");
        QTest::addColumn<QString>("named");
        QTest::newRow("trigger")
            << QStringLiteral(
                   "CREATE TRIGGER wipe AFTER INSERT ON candidates BEGIN DELETE FROM sessions; END")
            << QStringLiteral("trigger 'wipe' on table candidates");
        QTest::newRow("view") << QStringLiteral("CREATE VIEW everything AS SELECT * FROM sessions")
                              << QStringLiteral("view 'everything'");
        QTest::newRow("table") << QStringLiteral("CREATE TABLE notes (x)") << QStringLiteral("table 'notes'");
        QTest::newRow("index on its table") << QStringLiteral("CREATE INDEX by_task ON sessions(task_name)")
                                            << QStringLiteral("index 'by_task' on table sessions");
    }

    void refusesObjectsItDidNotCreate()
    {
        QFETCH(QString, sql);
        QFETCH(QString, named);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("workspace.sqlite"));
        {
            SessionStore store(path);
            QVERIFY(store.open());
        }
        plant(path, {sql});
        expectRefused(path, QStringLiteral("holds what AccelOpt did not put there: ") + named);
    }

    // The memory's own full-text index (FTS5 and its shadow tables, the triggers that feed it) is the
    // program's, and SQLite's statistics tables are SQLite's: neither is foreign. A trigger added to it is.
    void ownAndSqlitesObjectsAreNotForeign()
    {
        QTemporaryDir dir;
        const QString memory = dir.filePath(QStringLiteral("memory.sqlite"));
        const QString workspace = dir.filePath(QStringLiteral("workspace.sqlite"));
        {
            ExperienceStore store(memory);
            QVERIFY2(store.open(), qPrintable(store.lastError()));
            SessionStore sessions(workspace);
            QVERIFY2(sessions.open(), qPrintable(sessions.lastError()));
        }
        plant(memory, {QStringLiteral("ANALYZE")});
        plant(workspace, {QStringLiteral("ANALYZE")});
        {
            ExperienceStore store(memory);
            QVERIFY2(store.open(), qPrintable(store.lastError()));
            SessionStore sessions(workspace);
            QVERIFY2(sessions.open(), qPrintable(sessions.lastError()));
        }
        plant(memory, {QStringLiteral("CREATE TRIGGER spy AFTER INSERT ON experiences BEGIN SELECT 1; END")});
        const QByteArray before = fileHash(memory);
        ExperienceStore store(memory);
        QVERIFY(!store.open());
        QVERIFY2(store.lastError().contains(QStringLiteral("trigger 'spy' on table experiences")),
                 qPrintable(store.lastError()));
        QCOMPARE(fileHash(memory), before);
        QVERIFY(!QFile::exists(memory + QStringLiteral("-wal")));
    }

    // Every prompt, kernel and reply is in these files (issue 33): 0600 from the start, their -wal and -shm
    // too, and the folders made for them 0700, whatever the umask.
    void newFilesAndFoldersArePrivate()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("new/inner/workspace.sqlite"));
        const mode_t previous = ::umask(0);
        SessionStore store(path);
        const bool opened = store.open();
        ::umask(previous);
        QVERIFY2(opened, qPrintable(store.lastError()));
        QVERIFY(QFile::exists(path + QStringLiteral("-wal")));
        QCOMPARE(mode(path), 0600);
        QCOMPARE(mode(path + QStringLiteral("-wal")), 0600);
        QCOMPARE(mode(path + QStringLiteral("-shm")), 0600);
        QCOMPARE(mode(dir.filePath(QStringLiteral("new"))), 0700);
        QCOMPARE(mode(dir.filePath(QStringLiteral("new/inner"))), 0700);
    }

    // Files an older build left 0644 are tightened when opened, with a note; so is the program's own data
    // folder, but not a folder the user chose (it may be /tmp).
    void existingFilesAreTightenedWithANote()
    {
        QTemporaryDir home;
        const QByteArray previousHome = qgetenv("XDG_DATA_HOME");
        qputenv("XDG_DATA_HOME", QFile::encodeName(home.path()));
        const QString own =
            QFileInfo(DataPaths::userDataFile(QStringLiteral("memory.sqlite"))).absolutePath();
        QVERIFY(QDir().mkpath(own));
        const QString inOwn = QDir(own).filePath(QStringLiteral("memory.sqlite"));
        QTemporaryDir chosen;
        const QString inChosen = chosen.filePath(QStringLiteral("memory.sqlite"));
        for (const QString &path : {inOwn, inChosen}) {
            {
                ExperienceStore store(path);
                QVERIFY2(store.open(), qPrintable(store.lastError()));
            }
            QVERIFY(::chmod(QFile::encodeName(path).constData(), 0644) == 0);
            QVERIFY(::chmod(QFile::encodeName(QFileInfo(path).absolutePath()).constData(), 0755) == 0);
            QTest::ignoreMessage(QtWarningMsg, qPrintable(QStringLiteral("tightened %1 from 0644 to 0600, so "
                                                                         "other local users cannot read it")
                                                              .arg(path)));
            if (path == inOwn)
                QTest::ignoreMessage(QtWarningMsg,
                                     qPrintable(QStringLiteral("tightened %1 from 0755 to 0700, so "
                                                               "other local users cannot read it")
                                                    .arg(own)));
            ExperienceStore store(path);
            QVERIFY2(store.open(), qPrintable(store.lastError()));
            QCOMPARE(mode(path), 0600);
        }
        QCOMPARE(mode(own), 0700);
        QCOMPARE(mode(chosen.path()), 0755);
        qputenv("XDG_DATA_HOME", previousHome);
    }

    void transactionsAreAllOrNothing()
    {
        QTemporaryDir dir;
        Database db(WorkspaceSchema::schema());
        QString error;
        QVERIFY(db.open(dir.filePath(QStringLiteral("ws.sqlite")), error));
        const QString insert =
            QStringLiteral("INSERT INTO sessions (id, created_at, updated_at) VALUES ('%1', 'x', 'x')");
        QVERIFY(!db.transact(
            [&](QString &e) {
                return db.execute(insert.arg(QStringLiteral("a")), e) &&
                       db.transact(
                           [&](QString &inner) { return db.execute(insert.arg(QStringLiteral("b")), inner); },
                           e) &&
                       db.execute(insert.arg(QStringLiteral("a")), e); // duplicate key: fails
            },
            error));
        QVERIFY(error.contains(QStringLiteral("UNIQUE")));
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM sessions")).toInt(), 0);
        // A failed nested step rolls back alone when the outer work carries on.
        QVERIFY(db.transact(
            [&](QString &e) {
                QString ignored;
                db.transact(
                    [&](QString &inner) {
                        return db.execute(insert.arg(QStringLiteral("c")), inner) && false;
                    },
                    ignored);
                return db.execute(insert.arg(QStringLiteral("d")), e);
            },
            error));
        QCOMPARE(scalar(db, QStringLiteral("SELECT group_concat(id) FROM sessions")).toString(),
                 QStringLiteral("d"));
    }
};

QTEST_GUILESS_MAIN(TestDatabase)
#include "tst_database.moc"
