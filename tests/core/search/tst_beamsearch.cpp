#include "agents/promptlibrary.h"
#include "common/datapaths.h"
#include "hosts/hostconfig.h"
#include "hosts/hostpool.h"
#include "hosts/localhost.h"
#include "llm/chatclient.h"
#include "memory/experiencestore.h"
#include "scriptedagents.h"
#include "scriptedllmserver.h"
#include "export/reportwriter.h"
#include "search/beamsearch.h"
#include "store/sessionstore.h"

#include <QFile>
#include <QJsonArray>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QJsonDocument>
#include <QTest>

// BeamSearch end to end on the local host with the real runner (nkisim, --size small) and ScriptedLlmServer,
// a stand-in for a real model server on loopback: it answers each agent role with a canned reply. The
// executor's kernel is a real, correct and faster variant of the silu baseline (one fused activation instead
// of four instructions), so selection, the memory and the store see genuine measurements.
class TestBeamSearch : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    PromptLibrary m_prompts;
    QString m_baseline;
    QString m_fast;
    QString m_reference;

    static QString read(const QString &path)
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            qFatal("cannot read %s", qPrintable(path));
        return QString::fromUtf8(f.readAll());
    }
    static QString fenced(const QString &code)
    {
        return QStringLiteral("```python\n") + code + QStringLiteral("```\n");
    }

    static AgentRole roleOf(const ScriptedLlmServer::Request &r)
    {
        return AgentRoles::fromName(ScriptedAgents::roleOf(r)).value_or(AgentRole::Planner);
    }

    static QString planReply()
    {
        return QStringLiteral("Title: Fuse the four SiLU instructions into one activation\n"
                              "1. Replace exp, add, reciprocal and multiply by nisa.activation(op=nl.silu).\n"
                              "2. Keep the tiling as it is.\n");
    }
    static QString summaryReply()
    {
        return QStringLiteral("Title: Use the fused silu activation\n"
                              "Lesson: One scalar-engine activation replaces four instructions per tile.\n"
                              "Before:\n```python\ne = nisa.activation(op=nl.exp, data=x, scale=-1.0)\n```\n"
                              "After:\n```python\ny = nisa.activation(op=nl.silu, data=x)\n```\n");
    }

    // The planner's one plan, `kernel` for every executor and fixer call, and the summarizer's one lesson.
    static ScriptedLlmServer::Handler onePlanOneKernel(const QString &kernel)
    {
        return [kernel](const ScriptedLlmServer::Request &r) {
            switch (roleOf(r)) {
            case AgentRole::Planner:
                return ScriptedLlmServer::completion(planReply());
            case AgentRole::Summarizer:
                return ScriptedLlmServer::completion(summaryReply());
            default:
                return ScriptedLlmServer::completion(fenced(kernel));
            }
        };
    }

    struct Rig
    {
        ScriptedLlmServer server;
        HostPool pool;
        SessionStore store;
        ExperienceStore memory;
        ChatClient *client = nullptr;
        BeamSearch *search = nullptr;
        Rig(const QString &dir, const PromptLibrary &prompts)
            : store(dir + QStringLiteral("/workspace.sqlite")), memory(dir + QStringLiteral("/memory.sqlite"))
        {
            HostConfig c;
            c.name = QStringLiteral("here");
            c.slotCount = 2;
            c.python = QStringLiteral("/usr/bin/python3");
            pool.addHost(new LocalHost(c, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench")));
            pool.start();
            server.start();
            Endpoint e;
            e.name = QStringLiteral("stand-in");
            e.baseUrl = server.baseUrl();
            e.model = QStringLiteral("stand-in-model");
            e.timeoutMs = 10000;
            e.concurrency = 3;
            client = new ChatClient(e, &server);
            RetryPolicy noRetry;
            noRetry.maxAttempts = 1;
            client->setRetryPolicy(noRetry);
            client->setRecorder(&store);
            search = new BeamSearch(&pool, &store, &prompts, &server);
            search->setClient(client);
            search->setMemory(&memory);
        }
        ~Rig() { pool.stop(); }
    };

    BeamSearch::Task task() const
    {
        BeamSearch::Task t;
        t.name = QStringLiteral("silu");
        t.ref = {{QStringLiteral("name"), QStringLiteral("silu")}};
        t.reference = m_reference;
        t.kernel = m_baseline;
        t.size = QStringLiteral("small");
        t.evalTimeoutSeconds = 120;
        return t;
    }
    template<typename T> static int count(const QList<SearchEvent> &events)
    {
        return int(
            std::count_if(events.cbegin(), events.cend(), [](const SearchEvent &e) { return e.as<T>(); }));
    }

    // What a live view relies on: the session comes first and the end last, every event names the session,
    // a kernel is created before it is evaluated, every call that finishes was started, and time only moves
    // forward.
    static void checkEventOrder(const QList<SearchEvent> &events)
    {
        QVERIFY(!events.isEmpty());
        QVERIFY(events.first().as<SearchEvents::SessionStarted>());
        QVERIFY(events.last().as<SearchEvents::Stopped>());
        QSet<QString> created;
        QSet<quint64> calls;
        double clock = 0;
        for (const SearchEvent &e : events) {
            QCOMPARE(e.sessionId, events.first().sessionId);
            QVERIFY(e.elapsedSeconds >= clock);
            clock = e.elapsedSeconds;
            if (const auto *c = e.as<SearchEvents::CandidateCreated>())
                created.insert(c->candidate.id);
            if (const auto *s = e.as<SearchEvents::EvaluationStarted>())
                QVERIFY(created.contains(s->candidateId));
            if (const auto *f = e.as<SearchEvents::EvaluationFinished>())
                QVERIFY(created.contains(f->candidateId));
            if (const auto *s = e.as<SearchEvents::LlmCallStarted>())
                calls.insert(s->call);
            if (const auto *f = e.as<SearchEvents::LlmCallFinished>())
                QVERIFY(calls.remove(f->call));
            QVERIFY(!e.name().isEmpty());
            QCOMPARE(e.toJson().value(QStringLiteral("event")).toString(), e.name());
        }
        QVERIFY2(calls.isEmpty(), "a model call was started and never finished");
    }

    static SearchConfig tiny(int b, int n, int k, int t)
    {
        SearchConfig c;
        c.beamWidth = b;
        c.plansPerKernel = n;
        c.samplesPerPlan = k;
        c.iterations = t;
        return c;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_prompts.load(DataPaths::promptsDir()), qPrintable(m_prompts.errors().join(u'\n')));
        m_baseline = read(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"));
        m_reference = read(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/reference.py"));
        m_fast = read(QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/core/search/silu_fast.py"));
    }

    void oneStepFindsTheFasterKernel()
    {
        QTemporaryDir dir;
        Rig rig(dir.path(), m_prompts);
        QVERIFY(rig.store.open() && rig.memory.open());
        rig.server.setHandler(onePlanOneKernel(m_fast));
        QSignalSpy done(rig.search, &BeamSearch::finished);
        QList<SearchEvent> events;
        connect(rig.search, &BeamSearch::event, this, [&events](const SearchEvent &e) { events << e; });
        QVERIFY2(rig.search->start(task(), tiny(1, 1, 1, 1)), qPrintable(rig.search->lastError()));
        QVERIFY(done.wait(120000));
        QCOMPARE(done.first().first().value<StopReason>(), StopReason::Iterations);
        checkEventOrder(events);
        QCOMPARE(count<SearchEvents::BeamSelected>(events), 2); // the baseline, then iteration 1
        QCOMPARE(count<SearchEvents::PlanCreated>(events), 1);
        QCOMPARE(count<SearchEvents::CandidateCreated>(events), 2);
        QCOMPARE(count<SearchEvents::EvaluationFinished>(events),
                 3); // the baseline; the kernel timed, checked
        QCOMPARE(count<SearchEvents::ExperienceStored>(events), 1);
        QCOMPARE(count<SearchEvents::IterationFinished>(events), 1);
        QCOMPARE(count<SearchEvents::LlmCallFinished>(events), 3); // planner, executor, summarizer
        const auto *stopped = events.last().as<SearchEvents::Stopped>();
        QVERIFY(stopped);
        QCOMPARE(stopped->reason, StopReason::Iterations);
        QCOMPARE(stopped->llmCalls, 3);
        QVERIFY(stopped->totals.speedup && *stopped->totals.speedup > 1.04);
        QCOMPARE(stopped->totals.bestCandidateId, rig.search->bestCandidateId());

        const QString session = rig.search->sessionId();
        const QString baselineId = SessionStore::baselineCandidateId(session);
        const QStringList beam = rig.store.beam(session, 1);
        QCOMPARE(beam.size(), 1);
        QVERIFY(beam.first() != baselineId);
        const auto base = rig.store.evaluation(baselineId);
        const auto best = rig.store.evaluation(beam.first());
        QVERIFY(base && best);
        QVERIFY2(*best->latencyMeanMs < *base->latencyMeanMs,
                 qPrintable(QStringLiteral("%1 vs %2").arg(*best->latencyMeanMs).arg(*base->latencyMeanMs)));
        QCOMPARE(rig.store.plans(session, 1).size(), 1);
        QCOMPARE(rig.store.candidates(session).size(), 2);
        QVERIFY(rig.store.isStepCompleted(session, 1, ResumeStep::Select));
        QVERIFY(rig.store.isStepCompleted(session, 1, ResumeStep::Summarize));
        QCOMPARE(rig.store.session(session)->status, SessionRecord::Status::Finished);
        QCOMPARE(rig.store.statistics().costTotals(session).calls, 3); // planner, executor, summarizer
        // The 1.4x gain became a positive experience.
        const auto memory = rig.memory.list(QStringLiteral("silu"));
        QCOMPARE(memory.size(), 1);
        QVERIFY(!memory.first().isNegative());
        QCOMPARE(memory.first().fastCandidateId, beam.first());
        QCOMPARE(memory.first().slowCandidateId, baselineId);
        QVERIFY(memory.first().experience.speedup > 1.04);
        QVERIFY(rig.search->tokens() > 0);
        // The search, the store and so the CLI's sessions and export agree on the best kernel.
        QCOMPARE(rig.store.bestCandidate(session)->id, rig.search->bestCandidateId());
        // Before it was reported, the best ran again on two fresh seeds and passed.
        QCOMPARE(count<SearchEvents::BestRemeasured>(events), 1);
        const auto *remeasured = events.at(events.size() - 2).as<SearchEvents::BestRemeasured>();
        QVERIFY(remeasured);
        QCOMPARE(remeasured->candidateId, beam.first());
        QCOMPARE(remeasured->size, QStringLiteral("small"));
        QCOMPARE(remeasured->seeds.size(), 2);
        QVERIFY(!remeasured->demoted);
        QVERIFY(remeasured->evaluation.isCorrect());
        QVERIFY(rig.store.evaluation(beam.first(), SessionStore::remeasureRun)->isCorrect());
    }

    // A full-size session whose only faster kernel hard-codes the full shape: correct and fast where the
    // search measures it, wrong on the small parameter set. It is re-measured there before it is reported,
    // demoted, and the baseline stays the session's best in the search, the store and the events.
    void aKernelThatHardCodesItsShapeIsDemoted()
    {
        QTemporaryDir dir;
        Rig rig(dir.path(), m_prompts);
        QVERIFY(rig.store.open() && rig.memory.open());
        const QString cheat =
            read(QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/core/search/silu_fixed_shape.py"));
        rig.server.setHandler(onePlanOneKernel(cheat));
        QSignalSpy done(rig.search, &BeamSearch::finished);
        QList<SearchEvent> events;
        connect(rig.search, &BeamSearch::event, this, [&events](const SearchEvent &e) { events << e; });
        BeamSearch::Task full = task();
        full.size = QStringLiteral("full");
        full.evalTimeoutSeconds = 600;
        QVERIFY2(rig.search->start(full, tiny(1, 1, 1, 1)), qPrintable(rig.search->lastError()));
        QVERIFY(done.wait(600000));
        QCOMPARE(done.first().first().value<StopReason>(), StopReason::Iterations);
        checkEventOrder(events);

        const QString session = rig.search->sessionId();
        const QString baselineId = SessionStore::baselineCandidateId(session);
        const QStringList beam = rig.store.beam(session, 1);
        QCOMPARE(beam.size(), 1);
        const QString cheater = beam.first();
        QVERIFY2(cheater != baselineId, "at full size the hard-coded kernel should have won the iteration");
        QCOMPARE(count<SearchEvents::BestRemeasured>(events), 1);
        const auto *remeasured = events.at(events.size() - 2).as<SearchEvents::BestRemeasured>();
        QVERIFY(remeasured);
        QCOMPARE(remeasured->candidateId, cheater);
        QCOMPARE(remeasured->size, QStringLiteral("small"));
        QVERIFY(remeasured->demoted);
        QVERIFY(remeasured->evaluation.status != EvalStatus::InfraError);
        const auto *stopped = events.last().as<SearchEvents::Stopped>();
        QCOMPARE(stopped->totals.bestCandidateId, baselineId);
        QCOMPARE(rig.search->bestCandidateId(), baselineId);
        QCOMPARE(rig.store.bestCandidate(session)->id, baselineId);
        QVERIFY(Selection::failsRemeasure(*rig.store.evaluation(cheater, SessionStore::remeasureRun)));
        // Its lesson was learned in iteration 1 and withdrawn when the kernel was demoted: the memory keeps
        // nothing a rejected kernel taught.
        QCOMPARE(count<SearchEvents::ExperienceStored>(events), 1);
        QVERIFY2(rig.memory.list(QStringLiteral("silu")).isEmpty(), "the demoted kernel's lesson stayed");
        // The report says why the best is the baseline, in the text and in the JSON.
        ReportWriter report(rig.store);
        QVERIFY(report.load(session));
        const QString md = QString::fromUtf8(report.markdown());
        QVERIFY2(md.contains(QStringLiteral("- Demoted: candidate `%1`").arg(cheater)), qPrintable(md));
        const QJsonArray demoted =
            QJsonDocument::fromJson(report.json()).object().value(QStringLiteral("demoted")).toArray();
        QCOMPARE(demoted.size(), 1);
        QCOMPARE(demoted.first().toObject().value(QStringLiteral("candidate")).toString(), cheater);
    }

    // Usage evidence from a scripted search: every plan records which experiences it was shown, and once its
    // kernels are measured whether one was faster than where it started. Iteration 1 turns the baseline into
    // the fast kernel (a hit); iteration 2 gets the same fast kernel back, no faster (a miss).
    void usageEvidenceCountsThePlansThatLedToFasterKernels()
    {
        QTemporaryDir dir;
        Rig rig(dir.path(), m_prompts);
        QVERIFY(rig.store.open() && rig.memory.open());
        ExperienceRecord seeded;
        seeded.task = QStringLiteral("silu");
        seeded.experience.title = QStringLiteral("Fuse the activation");
        seeded.experience.lesson = QStringLiteral("One activation instead of four instructions.");
        seeded.experience.speedup = 1.5;
        QVERIFY(rig.memory.add(seeded));
        rig.server.setHandler(onePlanOneKernel(m_fast));
        QSignalSpy done(rig.search, &BeamSearch::finished);
        QVERIFY2(rig.search->start(task(), tiny(1, 1, 1, 2)), qPrintable(rig.search->lastError()));
        QVERIFY(done.wait(180000));
        const QString session = rig.search->sessionId();

        const auto first = rig.memory.get(seeded.id);
        QVERIFY(first);
        QCOMPARE(first->shown, 2); // one plan per iteration
        QCOMPARE(first->decided, 2);
        QCOMPARE(first->faster, 1); // iteration 1's plan led to the fast kernel, iteration 2's did not
        const QList<RetrievalRecord> seen = rig.memory.retrievalsOf(seeded.id);
        QCOMPARE(seen.size(), 2);
        QCOMPARE(seen.at(0).sessionId, session);
        QCOMPARE(seen.at(0).iteration, 1);
        QCOMPARE(seen.at(0).planId,
                 SessionStore::planId(session, 1, SessionStore::baselineCandidateId(session), 0));
        QCOMPARE(seen.at(0).outcome, RetrievalRecord::Outcome::Faster);
        QCOMPARE(seen.at(1).iteration, 2);
        QCOMPARE(seen.at(1).outcome, RetrievalRecord::Outcome::NotFaster);

        // The lesson learned in iteration 1 was shown to iteration 2's plan, which found nothing faster.
        const auto learned = rig.memory.list(QStringLiteral("silu"));
        const auto fresh = std::find_if(learned.cbegin(), learned.cend(),
                                        [&](const ExperienceRecord &r) { return r.id != seeded.id; });
        QVERIFY(fresh != learned.cend());
        QCOMPARE(fresh->shown, 1);
        QCOMPARE(fresh->decided, 1);
        QCOMPARE(fresh->faster, 0);
        QCOMPARE(fresh->hitRate(), 0.0);
        QCOMPARE(first->hitRate(), 0.5);
    }

    // The cascade: children are first only timed, and only those that could enter the beam (or make an
    // experience) are checked. B=2, N=1, K=3 with three replies: the fast kernel, a kernel as fast but wrong
    // (sigmoid for silu), and a kernel at the baseline's speed. The wrong one is caught by its check, the
    // slow one is never checked, and the beam is the one that checking everything gives.
    void cascadeChecksOnlyWhatCouldEnterTheBeam()
    {
        QString wrong = m_fast;
        wrong.replace(QStringLiteral("op=nl.silu"), QStringLiteral("op=nl.sigmoid"));
        QVERIFY(wrong != m_fast);
        const QString slow = m_baseline + QStringLiteral("\n_VARIANT = 1\n");
        QHash<QString, QStringList> beams;
        for (const bool checkAll : {false, true}) {
            QTemporaryDir dir;
            Rig rig(dir.path(), m_prompts);
            QVERIFY(rig.store.open() && rig.memory.open());
            int executorCalls = 0;
            rig.server.setHandler([&](const ScriptedLlmServer::Request &r) {
                switch (roleOf(r)) {
                case AgentRole::Planner:
                    return ScriptedLlmServer::completion(planReply());
                case AgentRole::Summarizer:
                    return ScriptedLlmServer::completion(summaryReply());
                default:
                    break;
                }
                const QString replies[] = {m_fast, wrong, slow};
                return ScriptedLlmServer::completion(fenced(replies[executorCalls++ % 3]));
            });
            SearchConfig config = tiny(2, 1, 3, 1);
            config.fixRounds = 0;
            config.checkAll = checkAll;
            QList<SearchEvent> events;
            connect(rig.search, &BeamSearch::event, this, [&events](const SearchEvent &e) { events << e; });
            QSignalSpy done(rig.search, &BeamSearch::finished);
            QVERIFY2(rig.search->start(task(), config), qPrintable(rig.search->lastError()));
            QVERIFY(done.wait(180000));
            QCOMPARE(done.first().first().value<StopReason>(), StopReason::Iterations);
            checkEventOrder(events);
            const QString session = rig.search->sessionId();
            QHash<QString, std::optional<Evaluation>> bySource;
            for (const Candidate &c : rig.store.candidates(session))
                if (c.origin != Candidate::Origin::Baseline)
                    bySource.insert(c.source.trimmed(), rig.store.evaluation(c.id));
            QCOMPARE(bySource.size(), 3);
            const auto fast = bySource.value(m_fast.trimmed()), bad = bySource.value(wrong.trimmed()),
                       base = bySource.value(slow.trimmed());
            QVERIFY(fast && bad && base);
            QCOMPARE(fast->correct, std::optional<bool>(true));
            QCOMPARE(bad->status, EvalStatus::Incorrect);
            QCOMPARE(base->status, EvalStatus::Ok);
            QCOMPARE(base->correct, checkAll ? std::optional<bool>(true) : std::nullopt);
            const auto *iteration = [&]() -> const SearchEvents::IterationFinished * {
                for (const SearchEvent &e : std::as_const(events))
                    if (const auto *finished = e.as<SearchEvents::IterationFinished>())
                        return finished;
                return nullptr;
            }();
            QVERIFY(iteration);
            QCOMPARE(iteration->unchecked, checkAll ? 0 : 1);
            QCOMPARE(iteration->usable, checkAll ? 2 : 1);
            // timed, then checked: the fast and the wrong kernel; only timed: the slow one
            QCOMPARE(count<SearchEvents::EvaluationFinished>(events), checkAll ? 4 : 6);
            QStringList beam;
            for (const QString &id : rig.store.beam(session, 1))
                beam << rig.store.candidate(id)->sourceHash;
            beams.insert(checkAll ? QStringLiteral("all") : QStringLiteral("cascade"), beam);
            QCOMPARE(beam.size(), 2);
        }
        QCOMPARE(beams.value(QStringLiteral("cascade")), beams.value(QStringLiteral("all")));
    }

    void failuresCostOnlyTheirSample()
    {
        // B=2, N=2, K=2, T=2. Some executor replies are broken kernels (the fixer repairs them), one is an
        // HTTP error, one has no code. The search still finishes, with the fast kernel in the beam.
        QTemporaryDir dir;
        Rig rig(dir.path(), m_prompts);
        QVERIFY(rig.store.open() && rig.memory.open());
        int executorCalls = 0;
        rig.server.setHandler([this, &executorCalls](const ScriptedLlmServer::Request &r) {
            switch (roleOf(r)) {
            case AgentRole::Planner:
                return ScriptedLlmServer::completion(planReply());
            case AgentRole::Summarizer:
                return ScriptedLlmServer::completion(summaryReply());
            case AgentRole::Fixer:
                return ScriptedLlmServer::completion(fenced(m_fast));
            case AgentRole::Executor:
                break;
            }
            switch (executorCalls++ % 4) {
            case 0:
                return ScriptedLlmServer::error(400, "bad request");
            case 1:
                return ScriptedLlmServer::completion(QStringLiteral("I could not do it."));
            case 2: {
                QString broken = m_fast;
                broken.replace(QStringLiteral("nl.silu"), QStringLiteral("nl.no_such_op"));
                return ScriptedLlmServer::completion(fenced(broken));
            }
            default:
                return ScriptedLlmServer::completion(
                    fenced(m_baseline)); // unchanged: same hash as the parent
            }
        });
        SearchConfig config = tiny(2, 2, 2, 2);
        config.fixRounds = 1;
        // The first replies wait until two requests are out at once: the two planner calls of the baseline are
        // concurrent by design, and the check below must not depend on a reply losing the race to the second.
        rig.server.holdUntilInFlight(2);
        QSignalSpy done(rig.search, &BeamSearch::finished);
        QVERIFY2(rig.search->start(task(), config), qPrintable(rig.search->lastError()));
        QVERIFY(done.wait(240000));
        QCOMPARE(done.first().first().value<StopReason>(), StopReason::Iterations);
        const QString session = rig.search->sessionId();
        const QStringList beam = rig.store.beam(session, 2);
        QVERIFY(!beam.isEmpty() && beam.size() <= 2);
        const auto best = rig.store.candidate(beam.first());
        QVERIFY(best);
        QCOMPARE(best->origin, Candidate::Origin::Fixer);
        QVERIFY(rig.server.maxInFlight() > 1); // planner calls went out concurrently
        QVERIFY(rig.server.maxInFlight() <= 3);
        // Distinct kernels only: the beam never holds two copies of one source.
        if (beam.size() == 2)
            QVERIFY(rig.store.candidate(beam[0])->sourceHash != rig.store.candidate(beam[1])->sourceHash);
        // A kernel already measured in the session (the unchanged baseline, the fast kernel a second time)
        // takes over that measurement instead of being run again, and says whose it is.
        int reused = 0, measured = 0;
        QSet<QString> measuredHashes;
        for (const Candidate &c : rig.store.candidates(session)) {
            const auto e = rig.store.evaluation(c.id);
            QVERIFY(e);
            if (e->reusedFrom.isEmpty()) {
                ++measured;
                QVERIFY2(!measuredHashes.contains(c.sourceHash), "an identical kernel was measured twice");
                if (e->status != EvalStatus::InfraError)
                    measuredHashes.insert(c.sourceHash);
                continue;
            }
            ++reused;
            const auto twin = rig.store.candidate(e->reusedFrom);
            QVERIFY(twin);
            QCOMPARE(twin->sourceHash, c.sourceHash);
            QCOMPARE(e->latencyMeanMs, rig.store.evaluation(twin->id)->latencyMeanMs);
        }
        QVERIFY2(reused >= 2, qPrintable(QStringLiteral("%1 reused, %2 measured").arg(reused).arg(measured)));
        QCOMPARE(rig.store.bestCandidate(session)->id, rig.search->bestCandidateId());
    }

    // The fixer returned the kernel it was shown, with a comment added. It used to be asked again, with the
    // same kernel and the same error, for every round left (issue 33); now the chain stops and says why.
    void aFixerThatRepeatsAKernelStopsItsChain()
    {
        QTemporaryDir dir;
        Rig rig(dir.path(), m_prompts);
        QVERIFY(rig.store.open() && rig.memory.open());
        QString broken = m_fast;
        broken.replace(QStringLiteral("nl.silu"), QStringLiteral("nl.no_such_op"));
        int fixerCalls = 0;
        rig.server.setHandler([this, broken, &fixerCalls](const ScriptedLlmServer::Request &r) {
            switch (roleOf(r)) {
            case AgentRole::Planner:
                return ScriptedLlmServer::completion(planReply());
            case AgentRole::Summarizer:
                return ScriptedLlmServer::completion(summaryReply());
            case AgentRole::Fixer:
                ++fixerCalls;
                return ScriptedLlmServer::completion(fenced(QStringLiteral("# fixed now\n") + broken));
            case AgentRole::Executor:
                break;
            }
            return ScriptedLlmServer::completion(fenced(broken));
        });
        SearchConfig config = tiny(1, 1, 1, 1);
        config.fixRounds = 3;
        QSignalSpy done(rig.search, &BeamSearch::finished);
        QList<SearchEvent> events;
        connect(rig.search, &BeamSearch::event, this, [&events](const SearchEvent &e) { events << e; });
        QVERIFY2(rig.search->start(task(), config), qPrintable(rig.search->lastError()));
        QVERIFY(done.wait(240000));
        QCOMPARE(done.first().first().value<StopReason>(), StopReason::Iterations);
        checkEventOrder(events);
        QCOMPARE(fixerCalls, 1); // not 3
        QCOMPARE(count<SearchEvents::FixChainStopped>(events), 1);
        const SearchEvents::FixChainStopped *stopped = nullptr;
        for (const SearchEvent &e : std::as_const(events))
            if (const auto *s = e.as<SearchEvents::FixChainStopped>())
                stopped = s;
        const QString session = rig.search->sessionId();
        const auto fixed = rig.store.candidate(stopped->candidateId);
        QVERIFY(fixed);
        QCOMPARE(fixed->origin, Candidate::Origin::Fixer);
        QCOMPARE(stopped->fixRound, 1);
        QCOMPARE(stopped->repeatsCandidateId, fixed->parentId);
        QVERIFY(stopped->ownChain);
        QVERIFY2(stopped->reason.startsWith(QStringLiteral("the fix chain of %1 stops at round 1: the fixer "
                                                           "returned the same kernel (normalized) as %2")
                                                .arg(fixed->id, fixed->parentId)),
                 qPrintable(stopped->reason));
        // The repeat was not measured again: it took over the failure it repeats.
        QCOMPARE(rig.store.evaluation(fixed->id)->reusedFrom, fixed->parentId);
        QCOMPARE(rig.store.candidates(session).size(), 3); // the baseline, the executor's, the fixer's one
    }

    // A 1 MB "plan" went whole into the executor's prompt and into the store (issue 33): it is cut to the
    // planner's cap first, with a note that the executor reads and the store keeps.
    void anOversizedPlanIsCutBeforeTheExecutorSeesIt()
    {
        QTemporaryDir dir;
        Rig rig(dir.path(), m_prompts);
        QVERIFY(rig.store.open() && rig.memory.open());
        QString plan = planReply();
        while (plan.size() < 1024 * 1024)
            plan += QStringLiteral("3. And then unroll the loop once more, just in case.\n");
        plan.truncate(1024 * 1024);
        rig.server.setHandler([this, plan](const ScriptedLlmServer::Request &r) {
            switch (roleOf(r)) {
            case AgentRole::Planner:
                return ScriptedLlmServer::completion(plan);
            case AgentRole::Summarizer:
                return ScriptedLlmServer::completion(summaryReply());
            default:
                return ScriptedLlmServer::completion(fenced(m_fast));
            }
        });
        QSignalSpy done(rig.search, &BeamSearch::finished);
        QVERIFY2(rig.search->start(task(), tiny(1, 1, 1, 1)), qPrintable(rig.search->lastError()));
        QVERIFY(done.wait(240000));
        const QString note =
            QStringLiteral("[AccelOpt cut this planner reply here: it had 1048576 characters, over "
                           "the cap of 65536 for a planner reply; the first 65536 are kept]");
        int executorRequests = 0;
        for (const ScriptedLlmServer::Request &r : rig.server.requests()) {
            if (roleOf(r) != AgentRole::Executor)
                continue;
            ++executorRequests;
            QVERIFY2(r.body.size() < 200 * 1024, qPrintable(QString::number(r.body.size())));
            QString prompt;
            for (const QJsonValue &m : r.json.value(QStringLiteral("messages")).toArray())
                prompt += m.toObject().value(QStringLiteral("content")).toString();
            QVERIFY(prompt.contains(note));
        }
        QCOMPARE(executorRequests, 1);
        const QList<PlanRecord> plans = rig.store.plans(rig.search->sessionId(), 1);
        QCOMPARE(plans.size(), 1);
        QVERIFY(plans.first().plan.text.size() < 70 * 1024);
        QVERIFY(plans.first().plan.text.endsWith(note));
    }

    void everyCallRefusedStopsTheSearch()
    {
        // A wrong key: the server refuses every call. The search says so and stops, instead of finishing "all
        // iterations done" with nothing to show.
        QTemporaryDir dir;
        Rig rig(dir.path(), m_prompts);
        QVERIFY(rig.store.open() && rig.memory.open());
        rig.server.setHandler([](const ScriptedLlmServer::Request &) {
            return ScriptedLlmServer::error(401,
                                            "{\"error\": {\"message\": \"Incorrect API key provided\"}}");
        });
        QSignalSpy done(rig.search, &BeamSearch::finished);
        QVERIFY(rig.search->start(task(), tiny(1, 2, 1, 1)));
        QVERIFY(done.wait(120000));
        QCOMPARE(done.first().first().value<StopReason>(), StopReason::ModelsFailed);
        QVERIFY2(rig.search->lastError().contains(QStringLiteral("every model call of iteration 1 failed")),
                 qPrintable(rig.search->lastError()));
        QVERIFY2(rig.search->lastError().contains(QStringLiteral("401")),
                 qPrintable(rig.search->lastError()));
        const QString session = rig.search->sessionId();
        QCOMPARE(rig.store.session(session)->status, SessionRecord::Status::Failed);
        QCOMPARE(rig.store.session(session)->stopReason, QStringLiteral("models_failed"));
        QCOMPARE(rig.server.requestCount(), 2); // the two planner calls of iteration 1, nothing after

        // The key fixed, Resume asks the refused calls again instead of replaying their failures.
        rig.server.setHandler(onePlanOneKernel(m_fast));
        QSignalSpy again(rig.search, &BeamSearch::finished);
        QVERIFY2(rig.search->resume(session, tiny(1, 2, 1, 1)), qPrintable(rig.search->lastError()));
        QVERIFY(again.wait(120000));
        QCOMPARE(again.first().first().value<StopReason>(), StopReason::Iterations);
        QVERIFY(rig.server.requestCount() >= 2 + 2 + 2); // both planners asked again, then the executors
        QCOMPARE(rig.store.session(session)->status, SessionRecord::Status::Finished);
    }

    void unusableStartFailsTheSession()
    {
        QTemporaryDir dir;
        Rig rig(dir.path(), m_prompts);
        QVERIFY(rig.store.open() && rig.memory.open());
        BeamSearch::Task broken = task();
        broken.kernel.replace(QStringLiteral("nl.exp"), QStringLiteral("nl.no_such_op"));
        QSignalSpy done(rig.search, &BeamSearch::finished);
        QVERIFY(rig.search->start(broken, tiny(1, 1, 1, 1)));
        QVERIFY(done.wait(120000));
        QCOMPARE(done.first().first().value<StopReason>(), StopReason::Failed);
        QCOMPARE(rig.store.session(rig.search->sessionId())->status, SessionRecord::Status::Failed);
        QVERIFY(rig.search->lastError().contains(QStringLiteral("not usable")));
    }

    void stopEndsAtOnce()
    {
        QTemporaryDir dir;
        Rig rig(dir.path(), m_prompts);
        QVERIFY(rig.store.open() && rig.memory.open());
        ScriptedLlmServer::Response hang;
        hang.hang = true;
        rig.server.setHandler([hang](const ScriptedLlmServer::Request &) { return hang; });
        QSignalSpy done(rig.search, &BeamSearch::finished);
        bool baseline = false;
        connect(rig.search, &BeamSearch::event, this, [&baseline](const SearchEvent &e) {
            baseline = baseline || e.as<SearchEvents::BaselineEvaluated>();
        });
        QVERIFY(rig.search->start(task(), tiny(1, 2, 1, 3)));
        QTRY_VERIFY_WITH_TIMEOUT(baseline, 120000);
        QTRY_VERIFY(rig.server.requestCount() >= 1);
        rig.search->stop();
        QCOMPARE(done.size(), 1);
        QCOMPARE(done.first().first().value<StopReason>(), StopReason::Stopped);
        QCOMPARE(rig.store.session(rig.search->sessionId())->status, SessionRecord::Status::Stopped);
    }

    // A session that ended for lack of progress, given more iterations: its patience (2) is kept and counts
    // from the resume, so the resumed run gets two iterations to improve. (The window once switched patience
    // off on such a resume, and report.md said "patience 0"; counted on from before, it would stop after one.)
    void patienceCountsFromAResumeWithNewSettings()
    {
        QTemporaryDir dir;
        Rig rig(dir.path(), m_prompts);
        QVERIFY(rig.store.open() && rig.memory.open());
        rig.server.setHandler(onePlanOneKernel(m_baseline)); // never faster than the baseline
        QSignalSpy done(rig.search, &BeamSearch::finished);
        QList<SearchEvent> events;
        connect(rig.search, &BeamSearch::event, this, [&events](const SearchEvent &e) { events << e; });
        SearchConfig config = tiny(1, 1, 1, 6);
        config.patience = 2;
        QVERIFY2(rig.search->start(task(), config), qPrintable(rig.search->lastError()));
        QVERIFY(done.wait(240000));
        QCOMPARE(done.takeFirst().first().value<StopReason>(), StopReason::NoImprovement);
        QCOMPARE(count<SearchEvents::IterationFinished>(events), 2);
        const QString session = rig.search->sessionId();

        events.clear();
        config.iterations = 8;
        QVERIFY2(rig.search->resume(session, config), qPrintable(rig.search->lastError()));
        QVERIFY(done.wait(240000));
        QCOMPARE(done.first().first().value<StopReason>(), StopReason::NoImprovement);
        QCOMPARE(count<SearchEvents::IterationFinished>(events), 2); // iterations 3 and 4
        QCOMPARE(SearchConfig::fromJson(rig.store.session(session)->config)->patience, 2);
    }

    void resumeRefusesWhatItCannotTrust()
    {
        QTemporaryDir dir;
        Rig rig(dir.path(), m_prompts);
        QVERIFY(rig.store.open());
        QVERIFY(!rig.search->resume(QStringLiteral("no-such-session")));
        QVERIFY(rig.search->lastError().contains(QStringLiteral("no session")));

        // A session whose steps say the baseline was done but whose beam is missing.
        SessionRecord session;
        session.taskName = QStringLiteral("silu");
        session.task = {{QStringLiteral("name"), QStringLiteral("silu")}};
        session.config = tiny(1, 1, 1, 1).toJson();
        QVERIFY(rig.store.createSession(session));
        QVERIFY(!rig.search->resume(session.id));
        QVERIFY2(rig.search->lastError().contains(QStringLiteral("no starting kernel")),
                 qPrintable(rig.search->lastError()));
        Candidate baseline;
        baseline.id = SessionStore::baselineCandidateId(session.id);
        baseline.sessionId = session.id;
        baseline.origin = Candidate::Origin::Baseline;
        baseline.source = m_baseline;
        QVERIFY(rig.store.addCandidate(baseline));
        QVERIFY(rig.store.markStepCompleted(session.id, 0, ResumeStep::Baseline));
        QVERIFY(!rig.search->resume(session.id));
        QVERIFY2(rig.search->lastError().contains(QStringLiteral("no beam")),
                 qPrintable(rig.search->lastError()));
        // Settings this program cannot read are named, not guessed.
        QVERIFY(rig.store.setConfig(session.id, {{QStringLiteral("beam_width"), QStringLiteral("two")}}));
        QVERIFY(!rig.search->resume(session.id));
        QVERIFY2(rig.search->lastError().contains(QStringLiteral("beam_width")),
                 qPrintable(rig.search->lastError()));
        QCOMPARE(rig.search->state(), BeamSearch::State::Idle);
    }

    // The two-stage evaluation wired (issue 34): nkisim on the rig's pool, the Trainium STAND-IN
    // (tests/fixtures/runner/fake_nki_current) as the confirm host's pool. Without a memory, only what nkisim
    // places within the (default, uncalibrated) margin of its beam goes to the device: the baseline and the
    // fast kernel, not the slow one, which stays simulated only and is never the best.
    void confirmsOnlyWhatCouldChangeTheOutcome()
    {
        QTemporaryDir dir;
        Rig rig(dir.path(), m_prompts);
        QVERIFY(rig.store.open());
        rig.search->setMemory(nullptr);
        QFile wrapper(dir.filePath(QStringLiteral("python-with-standin-sdk")));
        QVERIFY(wrapper.open(QIODevice::WriteOnly));
        wrapper.write(QStringLiteral("#!/bin/sh\nPYTHONPATH='%1':\"$PYTHONPATH\" PATH='%1/bin':\"$PATH\" exec "
                                     "/usr/bin/python3 \"$@\"\n")
                          .arg(QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/fixtures/runner/fake_nki_current"))
                          .toUtf8());
        wrapper.close();
        wrapper.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        HostConfig trn;
        trn.name = QStringLiteral("trn-standin");
        trn.backend = QStringLiteral("neuron");
        trn.python = wrapper.fileName();
        HostPool device;
        device.addHost(new LocalHost(trn, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench")));
        device.start();
        rig.search->setConfirmPool(&device, QStringLiteral("neuron"));

        const QString fixtures = QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/fixtures/optimize/silu_current/");
        const QString fast = read(fixtures + QStringLiteral("fast1.py"));
        const QString slow = read(fixtures + QStringLiteral("slow1.py"));
        int executorCalls = 0;
        rig.server.setHandler([&](const ScriptedLlmServer::Request &r) {
            if (roleOf(r) == AgentRole::Planner)
                return ScriptedLlmServer::completion(planReply());
            return ScriptedLlmServer::completion(fenced(executorCalls++ == 0 ? fast : slow));
        });
        BeamSearch::Task t = task();
        t.kernel = read(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline_current.py"));
        t.backend = QStringLiteral("sim");
        SearchConfig config = tiny(1, 1, 2, 1);
        config.confirmOn = QStringLiteral("trn-standin");
        QSignalSpy done(rig.search, &BeamSearch::finished);
        QList<SearchEvent> events;
        connect(rig.search, &BeamSearch::event, this, [&events](const SearchEvent &e) { events << e; });
        QVERIFY2(rig.search->start(t, config), qPrintable(rig.search->lastError()));
        QVERIFY(done.wait(300000));
        QCOMPARE(done.first().first().value<StopReason>(), StopReason::Iterations);
        checkEventOrder(events);
        device.stop();

        const QString session = rig.search->sessionId();
        QString fastId, slowId;
        for (const Candidate &c : rig.store.candidates(session, 1))
            (c.source == fast ? fastId : slowId) = c.id;
        QVERIFY(!fastId.isEmpty() && !slowId.isEmpty());
        const QString baselineId = SessionStore::baselineCandidateId(session);
        // run 0 is what everything ranks by: the device's for the baseline and the fast kernel, nkisim's for the
        // slow one; a confirmed kernel keeps nkisim's run as run 2
        for (const QString &id : {baselineId, fastId}) {
            const auto e = rig.store.evaluation(id);
            QVERIFY2(e && e->onHardware() && e->ok() && e->correct == true, qPrintable(id));
            const auto sim = rig.store.evaluation(id, SessionStore::simulatedRun);
            QVERIFY2(sim && sim->backend == QStringLiteral("sim"), qPrintable(id));
            // the stand-in's device is slower than nkisim (launch overhead, engine scales >= 1)
            QVERIFY(*e->latencyMeanMs > *sim->latencyMeanMs);
        }
        const auto slowEval = rig.store.evaluation(slowId);
        QVERIFY(slowEval && slowEval->backend == QStringLiteral("sim"));
        QVERIFY(!rig.store.evaluation(slowId, SessionStore::simulatedRun));
        // the beam, the best and the reported totals
        QCOMPARE(rig.search->beam(), QStringList{fastId});
        QCOMPARE(rig.search->bestCandidateId(), fastId);
        QCOMPARE(rig.store.bestCandidate(session)->id, fastId);
        const auto *stopped = events.last().as<SearchEvents::Stopped>();
        QVERIFY(stopped);
        QCOMPARE(stopped->totals.confirmOn, QStringLiteral("trn-standin"));
        QCOMPARE(stopped->totals.deviceEvaluations, 2);
        QCOMPARE(stopped->totals.simulatedOnly, 1);
        QVERIFY(stopped->totals.best && stopped->totals.best->onHardware());
        const auto counted = rig.store.statistics().deviceCounts(session);
        QCOMPARE(counted.onDevice, 2);
        QCOMPARE(counted.simulatedOnly, 1);
        // the best kernel is re-measured where its number came from
        const auto remeasured = rig.store.evaluation(fastId, SessionStore::remeasureRun);
        QVERIFY(remeasured && remeasured->onHardware());
    }

    void refusesBadStart()
    {
        QTemporaryDir dir;
        Rig rig(dir.path(), m_prompts);
        QVERIFY(rig.store.open());
        QVERIFY(!rig.search->start(task(), tiny(0, 1, 1, 1)));
        QVERIFY(rig.search->lastError().contains(QStringLiteral("beam width")));
        BeamSearch::Task empty = task();
        empty.kernel.clear();
        QVERIFY(!rig.search->start(empty, tiny(1, 1, 1, 1)));
        // a confirm host without its pool
        SearchConfig confirm = tiny(1, 1, 1, 1);
        confirm.confirmOn = QStringLiteral("trn");
        QVERIFY(!rig.search->start(task(), confirm));
        QVERIFY2(rig.search->lastError().contains(QStringLiteral("no pool")), qPrintable(rig.search->lastError()));
    }
};

QTEST_GUILESS_MAIN(TestBeamSearch)
#include "tst_beamsearch.moc"
