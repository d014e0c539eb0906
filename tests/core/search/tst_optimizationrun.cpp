#include "hosts/hostpool.h"
#include "hosts/localhost.h"
#include "llm/llmconfig.h"
#include "scriptedllmserver.h"
#include "search/optimizationrun.h"
#include "store/sessionlock.h"
#include "store/sessionstore.h"

#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

// OptimizationRun on its own, the engine room under both front ends: what it refuses before touching anything
// (settings, an unkept budget), the key lookup (a missing key fails after Pending, a found one reaches the
// model), start and stop with the session lock held while it runs, resume by id prefix, a finished session
// with nothing to do, and the lock refusing a second runner of one session. Real SQLite files in a
// QTemporaryDir, the local host with the real runner (nkisim, small size), and ScriptedLlmServer, a stand-in
// for a real model server on loopback, which holds every reply: no search here gets past asking the planner.
class TestOptimizationRun : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    ScriptedLlmServer m_server;
    HostPool m_pool;
    QString m_sessionId; // the session startAndStop left behind, stopped

    static constexpr auto kKeyVariable = "ACCELOPT_TST_OPTIMIZATIONRUN_KEY";

    static QString read(const QString &path)
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            qFatal("cannot read %s", qPrintable(path));
        return QString::fromUtf8(f.readAll());
    }

    QString db() const { return m_dir.filePath(QStringLiteral("workspace.sqlite")); }

    // llm.json for the stand-in, every role on one endpoint; its key from kKeyVariable when `keyed`.
    QString writeLlmConfig(bool keyed, bool priced = true)
    {
        LlmConfig config;
        Endpoint e;
        e.name = QStringLiteral("stand-in");
        e.baseUrl = m_server.baseUrl();
        e.model = QStringLiteral("stand-in-model");
        e.timeoutMs = 600000;
        if (keyed) {
            e.keySource = Endpoint::KeySource::Environment;
            e.keyEnvVar = QString::fromLatin1(kKeyVariable);
        }
        config.endpoints << e;
        for (AgentRole role : AgentRoles::all())
            config.roster.assign(role, e.name);
        if (priced)
            config.prices.set(e.model, {3.0, 15.0});
        config.retry.maxAttempts = 1;
        const QString path = m_dir.filePath(QStringLiteral("llm-%1.json").arg(QTest::currentTestFunction()));
        QString error;
        if (!config.save(path, &error))
            qFatal("cannot write llm.json: %s", qPrintable(error));
        return path;
    }

    OptimizationRun::Options options(const QString &llmConfig) const
    {
        OptimizationRun::Options o;
        o.llmConfig = llmConfig;
        o.useMemory = false;
        return o;
    }

    void lend(OptimizationRun &run, SessionStore &store)
    {
        run.setWorkspace(&store);
        run.setPoolProvider([this](const QString &, HostConfig &config, QString &) {
            config.backend = QStringLiteral("sim");
            config.target = QStringLiteral("trn1");
            return &m_pool;
        });
    }

    static SearchTask silu()
    {
        SearchTask t;
        t.name = QStringLiteral("silu");
        t.ref = {{QStringLiteral("name"), QStringLiteral("silu")}};
        t.reference = read(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/reference.py"));
        t.kernel = read(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"));
        t.size = QStringLiteral("small");
        t.evalTimeoutSeconds = 300;
        return t;
    }

    static SearchConfig small()
    {
        SearchConfig c;
        c.beamWidth = 1;
        c.plansPerKernel = 1;
        c.samplesPerPlan = 1;
        c.iterations = 1;
        c.seed = 7;
        return c;
    }

    // A session written straight into the store, with its starting kernel, in `status`.
    QString addSession(SessionStore &store, SessionRecord::Status status)
    {
        SessionRecord s;
        const SearchTask t = silu();
        s.taskName = t.name;
        s.task = t.ref;
        s.target = t.target;
        s.backend = t.backend;
        s.host = QStringLiteral("local");
        s.config = small().toJson();
        s.run = t.runJson();
        if (!store.createSession(s))
            qFatal("cannot create a session: %s", qPrintable(store.lastError()));
        Candidate base;
        base.sessionId = s.id;
        base.origin = Candidate::Origin::Baseline;
        base.source = t.kernel;
        if (!store.addCandidate(base) || !store.setStatus(s.id, status))
            qFatal("cannot fill a session: %s", qPrintable(store.lastError()));
        return s.id;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("ACCELOPT_NO_KEYCHAIN", "1");
        qunsetenv(kKeyVariable);
        QVERIFY(m_server.start());
        m_server.setHolding(true); // every reply waits: a search here never gets past its first call
        m_server.setHandler([](const ScriptedLlmServer::Request &) {
            return ScriptedLlmServer::completion(QStringLiteral("Title: nothing\n1. Nothing.\n"));
        });
        HostConfig c;
        c.name = QStringLiteral("here");
        c.slotCount = 1;
        c.python = QStringLiteral("/usr/bin/python3");
        m_pool.addHost(new LocalHost(c, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench")));
        m_pool.start();
    }

    void cleanupTestCase() { m_pool.stop(); }

    // Refused before anything is opened: no workspace database appears.
    void invalidSettingsAreRefusedFirst()
    {
        const QString path = m_dir.filePath(QStringLiteral("untouched.sqlite"));
        SessionStore store(path);
        OptimizationRun run(options(writeLlmConfig(false)));
        lend(run, store);
        SearchConfig config = small();
        config.beamWidth = 0;
        QCOMPARE(run.start(silu(), config), OptimizationRun::Begin::Failed);
        QVERIFY2(run.error().startsWith(QStringLiteral("invalid search settings")), qPrintable(run.error()));
        QVERIFY(!QFileInfo::exists(path));
        QVERIFY(!run.isRunning());
    }

    void llmSettingsThatCannotDriveASearchLeaveNoDatabase()
    {
        const QString path = m_dir.filePath(QStringLiteral("untouched2.sqlite"));
        SessionStore store(path);
        LlmConfig config; // an endpoint, but no role assigned to it
        Endpoint e;
        e.name = QStringLiteral("stand-in");
        e.baseUrl = m_server.baseUrl();
        e.model = QStringLiteral("m");
        config.endpoints << e;
        const QString llm = m_dir.filePath(QStringLiteral("unassigned.json"));
        QString error;
        QVERIFY2(config.save(llm, &error), qPrintable(error));
        OptimizationRun run(options(llm));
        lend(run, store);
        QCOMPARE(run.start(silu(), small()), OptimizationRun::Begin::Failed);
        QVERIFY2(run.error().contains(QStringLiteral("cannot drive a search")), qPrintable(run.error()));
        QVERIFY(!QFileInfo::exists(path));
    }

    // A money budget with an unpriced model would never stop the search.
    void moneyBudgetWithoutAPriceIsRefused()
    {
        SessionStore store(db());
        OptimizationRun run(options(writeLlmConfig(false, false)));
        lend(run, store);
        SearchConfig config = small();
        config.budgetUsd = 1.0;
        QCOMPARE(run.start(silu(), config), OptimizationRun::Begin::Failed);
        QVERIFY2(run.error().contains(QStringLiteral("cannot be kept")), qPrintable(run.error()));
        QVERIFY(run.error().contains(QStringLiteral("stand-in-model")));
        QVERIFY(store.sessions().isEmpty());
    }

    // The key is looked up after start() returned; without one the run fails before any session exists.
    void missingKeyFailsBeforeTheSessionExists()
    {
        SessionStore store(db());
        OptimizationRun run(options(writeLlmConfig(true)));
        lend(run, store);
        QSignalSpy failed(&run, &OptimizationRun::failed);
        QSignalSpy started(&run, &OptimizationRun::started);
        QCOMPARE(run.start(silu(), small()), OptimizationRun::Begin::Pending);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        const QString error = failed.first().at(0).toString();
        QVERIFY2(error.contains(QStringLiteral("no API key for endpoint 'stand-in'")), qPrintable(error));
        QCOMPARE(started.count(), 0);
        QVERIFY(!run.isRunning());
        QVERIFY(store.sessions().isEmpty());
    }

    // A found key reaches the model; the session is locked while it runs, and a stop ends it resumable and
    // frees the lock.
    void startAndStop()
    {
        qputenv(kKeyVariable, "sekrit-key-1234");
        const int before = m_server.requestCount();
        SessionStore store(db());
        OptimizationRun run(options(writeLlmConfig(true)));
        lend(run, store);
        QSignalSpy started(&run, &OptimizationRun::started);
        QSignalSpy failed(&run, &OptimizationRun::failed);
        QSignalSpy finished(&run, &OptimizationRun::finished);
        QSignalSpy events(&run, &OptimizationRun::event);
        QCOMPARE(run.start(silu(), small()), OptimizationRun::Begin::Pending);
        QTRY_VERIFY_WITH_TIMEOUT(started.count() + failed.count() > 0, 60000);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
        m_sessionId = started.first().at(0).toString();
        QCOMPARE(run.sessionId(), m_sessionId);
        QVERIFY(run.isRunning());
        QVERIFY(SessionLock::isHeld(store.path(), m_sessionId));
        const std::optional<SessionRecord> session = store.session(m_sessionId);
        QVERIFY(session);
        QCOMPARE(session->status, SessionRecord::Status::Running);
        QCOMPARE(session->host, QStringLiteral("local"));
        QVERIFY(!events.isEmpty());
        const SearchEvent first = events.first().at(0).value<SearchEvent>();
        QCOMPARE(first.name(), QStringLiteral("session"));
        QCOMPARE(first.sessionId, m_sessionId);

        // The baseline is measured, then the planner asked, with the key from the environment.
        QTRY_VERIFY_WITH_TIMEOUT(m_server.requestCount() > before, 600000);
        const ScriptedLlmServer::Request &request = m_server.requests().at(before);
        QCOMPARE(request.headers.value("authorization"), QByteArray("Bearer sekrit-key-1234"));

        run.stop();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(finished.first().at(0).value<StopReason>(), StopReason::Stopped);
        QVERIFY(!run.isRunning());
        QVERIFY(!SessionLock::isHeld(store.path(), m_sessionId));
        QCOMPARE(store.session(m_sessionId)->status, SessionRecord::Status::Stopped);
        QCOMPARE(failed.count(), 0);
        m_server.releaseHeld();
    }

    // Resume by an id prefix; a second runner of the same session is refused by its lock while the first runs,
    // and nothing of the session changes for it.
    void resumeAndTheLockRefusingASecondRunner()
    {
        QVERIFY2(!m_sessionId.isEmpty(), "needs startAndStop");
        SessionStore store(db());
        OptimizationRun first(options(writeLlmConfig(true)));
        lend(first, store);
        QSignalSpy started(&first, &OptimizationRun::started);
        QSignalSpy failed(&first, &OptimizationRun::failed);
        QSignalSpy finished(&first, &OptimizationRun::finished);
        QCOMPARE(first.resume(m_sessionId.left(8), std::nullopt), OptimizationRun::Begin::Pending);
        QTRY_VERIFY_WITH_TIMEOUT(started.count() + failed.count() > 0, 60000);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
        QCOMPARE(started.first().at(0).toString(), m_sessionId);
        QVERIFY(first.isRunning());
        QVERIFY(SessionLock::isHeld(store.path(), m_sessionId));

        SessionStore otherStore(db());
        OptimizationRun second(options(writeLlmConfig(true)));
        lend(second, otherStore);
        QSignalSpy secondStarted(&second, &OptimizationRun::started);
        QCOMPARE(second.resume(m_sessionId, std::nullopt), OptimizationRun::Begin::Failed);
        QVERIFY2(second.error().contains(QStringLiteral("is being run by another process")),
                 qPrintable(second.error()));
        QVERIFY(!second.isRunning());
        QCOMPARE(secondStarted.count(), 0);
        // The first still holds it.
        QVERIFY(first.isRunning());
        QVERIFY(SessionLock::isHeld(store.path(), m_sessionId));

        first.stop();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QVERIFY(!SessionLock::isHeld(store.path(), m_sessionId));
        m_server.releaseHeld();
    }

    void unknownSessionCannotBeResumed()
    {
        SessionStore store(db());
        OptimizationRun run(options(writeLlmConfig(false)));
        lend(run, store);
        QCOMPARE(run.resume(QStringLiteral("zzzzzzzz"), std::nullopt), OptimizationRun::Begin::Failed);
        QVERIFY(!run.error().isEmpty());
        QVERIFY(!run.isRunning());
    }

    // A finished session without new settings: nothing to do, said as such, and the lock is given back.
    void finishedSessionHasNothingToDo()
    {
        SessionStore store(db());
        QVERIFY(store.open());
        const QString id = addSession(store, SessionRecord::Status::Finished);
        OptimizationRun run(options(writeLlmConfig(false)));
        lend(run, store);
        QSignalSpy started(&run, &OptimizationRun::started);
        QCOMPARE(run.resume(id, std::nullopt), OptimizationRun::Begin::NothingToDo);
        QVERIFY2(run.error().contains(QStringLiteral("has finished")), qPrintable(run.error()));
        QVERIFY(!SessionLock::isHeld(store.path(), id));
        QCOMPARE(started.count(), 0);
        QCOMPARE(store.session(id)->status, SessionRecord::Status::Finished);
        // New settings that are invalid: refused, and the lock given back too.
        SearchConfig bad = small();
        bad.iterations = 0;
        QCOMPARE(run.resume(id, bad), OptimizationRun::Begin::Failed);
        QVERIFY2(run.error().startsWith(QStringLiteral("invalid search settings")), qPrintable(run.error()));
        QVERIFY(!SessionLock::isHeld(store.path(), id));
    }

    // Another process's lock (here: one the test holds) refuses a resume before anything is prepared.
    void heldLockRefusesAResume()
    {
        SessionStore store(db());
        QVERIFY(store.open());
        const QString id = addSession(store, SessionRecord::Status::Stopped);
        SessionLock held(store.path(), id);
        QString error;
        QVERIFY2(held.tryLock(error), qPrintable(error));
        OptimizationRun run(options(writeLlmConfig(false)));
        lend(run, store);
        QCOMPARE(run.resume(id, std::nullopt), OptimizationRun::Begin::Failed);
        QVERIFY2(run.error().contains(QStringLiteral("stop that one first")), qPrintable(run.error()));
        QVERIFY(!run.isRunning());
        QVERIFY(held.isLocked());
        QCOMPARE(store.session(id)->status, SessionRecord::Status::Stopped);
    }

    // stop() between Pending and started(): the run fails, says so, and never starts.
    void stopWhileTheKeyIsLookedUp()
    {
        qputenv(kKeyVariable, "sekrit-key-1234");
        SessionStore store(db());
        OptimizationRun run(options(writeLlmConfig(true)));
        lend(run, store);
        QSignalSpy started(&run, &OptimizationRun::started);
        QSignalSpy failed(&run, &OptimizationRun::failed);
        const int sessions = [&] {
            SessionStore reader(db());
            return reader.open() ? int(reader.sessions().size()) : -1;
        }();
        QCOMPARE(run.start(silu(), small()), OptimizationRun::Begin::Pending);
        run.stop(); // the lookup answers on the event loop, so this comes first
        QCOMPARE(failed.count(), 1);
        QCOMPARE(failed.first().at(0).toString(), QStringLiteral("stopped before the search started"));
        // The lookup answers through a zero timer queued in start(); one queued now fires after it, so once it
        // has fired the answer has come and gone.
        bool after = false;
        QTimer::singleShot(0, &run, [&after] { after = true; });
        QTRY_VERIFY_WITH_TIMEOUT(after, 60000);
        QCOMPARE(started.count(), 0);
        QVERIFY(!run.isRunning());
        QCOMPARE(int(store.sessions().size()), sessions);
    }
};

QTEST_GUILESS_MAIN(TestOptimizationRun)
#include "tst_optimizationrun.moc"
