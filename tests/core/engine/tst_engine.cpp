#include "engine/engine.h"
#include "hosts/hostregistry.h"
#include "llm/llmconfig.h"
#include "memory/experiencestore.h"
#include "model/kernelnormalizer.h"
#include "runnergate.h"
#include "scriptedllmserver.h"
#include "store/sessionlock.h"
#include "store/sessionstore.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

// The workbench's engine room on its own, on the test's thread (the app runs it on a thread of its own): every
// answer carries the caller's job, a benchmark abandoned by a shutdown never answers while a later one does, a
// search's evaluations on the same pool are never taken for a benchmark's, sessions held by a live runner are
// shown live and cannot be deleted, a failed or pointless search start is told as searchFailed, and lessons are
// stored once and found by their kernels. Real SQLite files in a QTemporaryDir, a hosts.json of the test's own,
// the local host with the real runner (nkisim, small size), and ScriptedLlmServer, a stand-in for a real model
// server on loopback.
class TestEngine : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    static QString read(const QString &path)
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            qFatal("cannot read %s", qPrintable(path));
        return QString::fromUtf8(f.readAll());
    }

    static EvalRequest request(const QString &kernel)
    {
        EvalRequest r;
        r.task = {{QStringLiteral("name"), QStringLiteral("silu")}};
        r.kernelSource = kernel;
        r.size = QStringLiteral("small");
        r.timeoutSeconds = 300;
        return r;
    }

    static QString baseline() { return read(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py")); }

    Engine::Settings settings(const QString &name)
    {
        Engine::Settings s;
        s.workspaceDb = m_dir.filePath(name + QStringLiteral("-workspace.sqlite"));
        s.memoryDb = m_dir.filePath(name + QStringLiteral("-memory.sqlite"));
        s.llmConfig = m_dir.filePath(name + QStringLiteral("-llm.json")); // not there: no models
        s.hostsFile = m_dir.filePath(name + QStringLiteral("-hosts.json"));
        s.localSlots = 2;
        return s;
    }

    static QString addSession(SessionStore &store, SessionRecord::Status status)
    {
        SessionRecord s;
        s.taskName = QStringLiteral("silu");
        s.task = {{QStringLiteral("name"), QStringLiteral("silu")}};
        s.host = QStringLiteral("local");
        s.config = SearchConfig{}.toJson();
        if (!store.createSession(s))
            qFatal("cannot create a session: %s", qPrintable(store.lastError()));
        Candidate base;
        base.sessionId = s.id;
        base.origin = Candidate::Origin::Baseline;
        base.source = baseline();
        if (!store.addCandidate(base) || !store.setStatus(s.id, status))
            qFatal("cannot fill a session: %s", qPrintable(store.lastError()));
        return s.id;
    }

    static ExperienceRecord lesson(const QString &slow, const QString &fast)
    {
        ExperienceRecord r;
        r.task = QStringLiteral("silu");
        r.target = QStringLiteral("trn1");
        r.experience.title = QStringLiteral("Fuse the activation");
        r.experience.lesson = QStringLiteral("One activation instead of four instructions.");
        r.experience.snippetBefore = QStringLiteral("e = exp(x)");
        r.experience.snippetAfter = QStringLiteral("y = silu(x)");
        r.experience.speedup = 1.8;
        r.slowHash = KernelNormalizer::hash(slow);
        r.fastHash = KernelNormalizer::hash(fast);
        return r;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // Two benchmarks in flight at once: each answer carries its own caller's job and its own kernel's result.
    void benchmarksAnswerWithTheirCallersJob()
    {
        Engine engine(settings(QStringLiteral("jobs")));
        QMap<quint64, Evaluation> answers;
        connect(&engine, &Engine::benchmarkFinished, this,
                [&answers](quint64 job, const Evaluation &e) { answers.insert(job, e); });
        engine.benchmark(41, request(baseline()), QStringLiteral("local"));
        engine.benchmark(42, request(QStringLiteral("def kernel(:\n    pass\n")), QString()); // empty: local
        QTRY_COMPARE_WITH_TIMEOUT(answers.size(), 2, 600000);
        QVERIFY2(answers.value(41).ok(), qPrintable(answers.value(41).error));
        QVERIFY(answers.value(41).isCorrect());
        QVERIFY(!answers.value(42).ok());
        QCOMPARE(answers.keys(), (QList<quint64>{41, 42}));
        engine.shutdown();
    }

    // A host that is not there is answered at once, under the caller's job, as an infrastructure error.
    void unknownHostIsAnsweredAtOnce()
    {
        Engine engine(settings(QStringLiteral("nohost")));
        QSignalSpy done(&engine, &Engine::benchmarkFinished);
        engine.benchmark(7, request(baseline()), QStringLiteral("nowhere"));
        QCOMPARE(done.count(), 1);
        QCOMPARE(done.first().at(0).toULongLong(), quint64(7));
        const Evaluation e = done.first().at(1).value<Evaluation>();
        QCOMPARE(e.status, EvalStatus::InfraError);
        QVERIFY2(e.error.contains(QStringLiteral("no host named 'nowhere'")), qPrintable(e.error));
    }

    // A benchmark still running when the engine shuts down (the window closes, the host is dropped) is
    // abandoned: its result never comes, even once the runner would let it go; the next one is answered.
    void abandonedBenchmarkNeverAnswers()
    {
        RunnerGate gate(m_dir.filePath(QStringLiteral("gate")));
        const Engine::Settings s = settings(QStringLiteral("stale"));
        HostRegistry registry(s.hostsFile);
        QString error;
        QVERIFY2(registry.load(error), qPrintable(error));
        HostConfig gated = HostRegistry::builtinLocal();
        gated.name = QStringLiteral("gated");
        gated.python = gate.interpreter();
        QVERIFY2(registry.add(gated, error), qPrintable(error));
        QVERIFY2(registry.save(error), qPrintable(error));

        Engine engine(s);
        QList<quint64> answered;
        connect(&engine, &Engine::benchmarkFinished, this,
                [&answered](quint64 job, const Evaluation &) { answered << job; });
        engine.benchmark(1, request(baseline()), QStringLiteral("gated"));
        QTRY_VERIFY_WITH_TIMEOUT(!gate.holders().isEmpty(), 600000); // measured, held back by the gate
        engine.shutdown();
        gate.open();
        engine.benchmark(2, request(baseline()), QStringLiteral("gated"));
        // Job 1's pool went with the shutdown, its runner too; the gate is open, so had its result been passed
        // on it would have come before or with job 2's, which runs from scratch on a new pool.
        QTRY_COMPARE_WITH_TIMEOUT(answered.size(), 1, 600000);
        QCOMPARE(answered, (QList<quint64>{2}));
        engine.shutdown();
    }

    // A search and a benchmark share the local host's pool: the search's evaluations finish on that pool too,
    // and only the benchmark's is answered, once, under the caller's job.
    void searchEvaluationsAreNotTakenForABenchmark()
    {
        ScriptedLlmServer server;
        QVERIFY(server.start());
        server.setHolding(true); // the planner never answers: the search stops after its baseline
        server.setHandler([](const ScriptedLlmServer::Request &) {
            return ScriptedLlmServer::completion(QStringLiteral("Title: nothing\n1. Nothing.\n"));
        });
        Engine::Settings s = settings(QStringLiteral("shared"));
        LlmConfig llm;
        Endpoint e;
        e.name = QStringLiteral("stand-in");
        e.baseUrl = server.baseUrl();
        e.model = QStringLiteral("stand-in-model");
        llm.endpoints << e;
        for (AgentRole role : AgentRoles::all())
            llm.roster.assign(role, e.name);
        llm.retry.maxAttempts = 1;
        QString error;
        QVERIFY2(llm.save(s.llmConfig, &error), qPrintable(error));

        Engine engine(s);
        QList<quint64> answered;
        connect(&engine, &Engine::benchmarkFinished, this,
                [&answered](quint64 job, const Evaluation &) { answered << job; });
        QStringList events;
        connect(&engine, &Engine::searchEvent, this, [&events](const SearchEvent &ev) { events << ev.name(); });
        QSignalSpy failed(&engine, &Engine::searchFailed);
        QSignalSpy finished(&engine, &Engine::searchFinished);
        SearchTask task;
        task.name = QStringLiteral("silu");
        task.ref = {{QStringLiteral("name"), QStringLiteral("silu")}};
        task.reference = read(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/reference.py"));
        task.kernel = baseline();
        task.size = QStringLiteral("small");
        task.evalTimeoutSeconds = 300;
        SearchConfig config;
        config.beamWidth = 1;
        config.plansPerKernel = 1;
        config.samplesPerPlan = 1;
        config.iterations = 1;
        engine.startSearch(task, config, QStringLiteral("local"), false);
        engine.benchmark(9, request(baseline()), QStringLiteral("local"));
        // Both evaluations have finished on the pool once the search has asked its planner and the benchmark
        // is answered.
        QTRY_VERIFY_WITH_TIMEOUT(server.requestCount() > 0 && !answered.isEmpty(), 600000);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
        QVERIFY(events.contains(QStringLiteral("baseline")));
        QCOMPARE(answered, (QList<quint64>{9}));
        QVERIFY(engine.isSearching());
        engine.stopSearch();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(answered, (QList<quint64>{9}));
        server.releaseHeld();
        engine.shutdown();
    }

    // A running session held by a live process is listed live and cannot be deleted; once free it can.
    void heldSessionIsLiveAndKept()
    {
        const Engine::Settings s = settings(QStringLiteral("sessions"));
        SessionStore store(s.workspaceDb);
        QVERIFY(store.open());
        const QString id = addSession(store, SessionRecord::Status::Running);
        auto held = std::make_unique<SessionLock>(s.workspaceDb, id);
        QString error;
        QVERIFY2(held->tryLock(error), qPrintable(error));

        Engine engine(s);
        QSignalSpy listed(&engine, &Engine::sessionsListed);
        QSignalSpy deleted(&engine, &Engine::sessionDeleted);
        engine.listSessions(3);
        QCOMPARE(listed.count(), 1);
        QCOMPARE(listed.last().at(0).toULongLong(), quint64(3));
        auto sessions = listed.last().at(1).value<QList<SessionSummary>>();
        QCOMPARE(sessions.size(), 1);
        QCOMPARE(sessions.first().session.id, id);
        QVERIFY(sessions.first().live);

        engine.deleteSession(4, id);
        QCOMPARE(deleted.count(), 1);
        QCOMPARE(deleted.last().at(0).toULongLong(), quint64(4));
        QVERIFY2(deleted.last().at(2).toString().contains(QStringLiteral("is running")),
                 qPrintable(deleted.last().at(2).toString()));
        QVERIFY(store.session(id));

        held.reset(); // the runner is gone: an interrupted session, resumable, not live
        engine.listSessions(5);
        sessions = listed.last().at(1).value<QList<SessionSummary>>();
        QVERIFY(!sessions.first().live);
        engine.deleteSession(6, id);
        QCOMPARE(deleted.last().at(2).toString(), QString());
        QVERIFY(!store.session(id));
        QVERIFY(!QFile::exists(SessionLock::path(s.workspaceDb, id)));
    }

    // The Calibration tab's data comes from the engine: the baseline timed on nkisim in one session and
    // measured on a hardware host in another is one pair (issue 34).
    void calibrationPairsAKernelOfTwoSessions()
    {
        const Engine::Settings s = settings(QStringLiteral("calibration"));
        SessionStore store(s.workspaceDb);
        QVERIFY(store.open());
        for (const bool hardware : {false, true}) {
            const QString id = addSession(store, SessionRecord::Status::Finished);
            Evaluation e;
            e.status = EvalStatus::Ok;
            e.correct = true;
            e.latencyMeanMs = hardware ? 0.03 : 0.02;
            e.bound = QStringLiteral("memory");
            e.backend = hardware ? QStringLiteral("neuron") : QStringLiteral("sim");
            e.host = hardware ? QStringLiteral("trn#0") : QStringLiteral("local#0");
            QVERIFY(store.addEvaluation(SessionStore::baselineCandidateId(id), e));
        }
        Engine engine(s);
        QSignalSpy loaded(&engine, &Engine::calibrationLoaded);
        engine.loadCalibration(7, QString());
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded.last().at(0).toULongLong(), quint64(7));
        QCOMPARE(loaded.last().at(2).toString(), QString());
        const Calibration c = loaded.last().at(1).value<Calibration>();
        QCOMPARE(c.pairs().size(), 1);
        QCOMPARE(c.pairs().first().predictedMs, 0.02);
        QCOMPARE(c.pairs().first().measuredMs, 0.03);
        QCOMPARE(c.pairs().first().host, QStringLiteral("trn"));
        engine.loadCalibration(8, QStringLiteral("elsewhere"));
        QVERIFY(loaded.last().at(1).value<Calibration>().pairs().isEmpty());
    }

    // Failures of a search start come back as searchFailed, never as a start.
    void searchThatCannotStartIsToldAsFailed()
    {
        const Engine::Settings s = settings(QStringLiteral("search"));
        SessionStore store(s.workspaceDb);
        QVERIFY(store.open());
        const QString finished = addSession(store, SessionRecord::Status::Finished);
        Engine engine(s);
        QSignalSpy failed(&engine, &Engine::searchFailed);
        QSignalSpy started(&engine, &Engine::searchStarted);
        engine.resumeSearch(finished, std::nullopt, false);
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.last().at(0).toString().contains(QStringLiteral("has finished")),
                 qPrintable(failed.last().at(0).toString()));
        SearchConfig invalid;
        invalid.beamWidth = 0;
        SearchTask task;
        task.name = QStringLiteral("silu");
        task.kernel = baseline();
        engine.startSearch(task, invalid, QStringLiteral("local"), false);
        QCOMPARE(failed.count(), 2);
        QVERIFY2(failed.last().at(0).toString().startsWith(QStringLiteral("invalid search settings")),
                 qPrintable(failed.last().at(0).toString()));
        QCOMPARE(started.count(), 0);
        QVERIFY(!engine.isSearching());
    }

    // A confirmed lesson is stored once and found again by its two kernels, either way round.
    void lessonStoredOnceAndFoundByItsKernels()
    {
        Engine engine(settings(QStringLiteral("lessons")));
        QSignalSpy stored(&engine, &Engine::lessonStored);
        QSignalSpy found(&engine, &Engine::lessonFound);
        const QString slow = QStringLiteral("def kernel(x):\n    return slow(x)\n");
        const QString fast = QStringLiteral("def kernel(x):\n    return fast(x)\n");
        engine.findLesson(1, slow, fast);
        QCOMPARE(found.count(), 1);
        QVERIFY(!found.last().at(1).value<std::optional<ExperienceRecord>>());

        engine.storeLesson(2, lesson(slow, fast));
        QCOMPARE(stored.count(), 1);
        QCOMPARE(stored.last().at(0).toULongLong(), quint64(2));
        QCOMPARE(stored.last().at(2).toString(), QString());
        engine.storeLesson(3, lesson(slow, fast));
        QCOMPARE(stored.count(), 2);
        QVERIFY2(stored.last().at(2).toString().contains(QStringLiteral("already")),
                 qPrintable(stored.last().at(2).toString()));

        // Comments and blank lines do not make another kernel.
        engine.findLesson(4, QStringLiteral("# the slow one\n") + slow, fast);
        const auto record = found.last().at(1).value<std::optional<ExperienceRecord>>();
        QCOMPARE(found.last().at(0).toULongLong(), quint64(4));
        QVERIFY(record);
        QCOMPARE(record->experience.title, QStringLiteral("Fuse the activation"));
        engine.findLesson(5, fast, slow);
        QVERIFY(found.last().at(1).value<std::optional<ExperienceRecord>>());
    }
};

QTEST_GUILESS_MAIN(TestEngine)
#include "tst_engine.moc"
