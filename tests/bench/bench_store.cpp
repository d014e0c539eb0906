// Benchmark (CTest label bench): the workspace's ranking queries on a large workspace file. Every "best kernel"
// query filters its rows through EvaluationTable::rankable(): not demoted by a failed re-measurement, and measured
// on the backend of the session's baseline (issue 34), two correlated subqueries per row. A real SQLite file with
// 40 sessions of 2,500 candidates each (100,000 evaluations; every 20th candidate re-measured, half the sessions
// confirming on hardware: device run 0 for every 5th candidate, nkisim run 2 beside it). Prints the median of 5
// runs per query, in ms; asserts nothing.
//
//   ctest --test-dir build/ci -R bench_store -V   (or build/ci/bin/bench_store [sessions] [candidates] [keep.sqlite])
#include "model/candidate.h"
#include "model/evaluation.h"
#include "store/sessionstatistics.h"
#include "store/sessionstore.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTextStream>

#include <algorithm>
#include <functional>

namespace {
double medianMs(const std::function<void()> &work, int runs = 5)
{
    QList<double> ms;
    for (int i = 0; i < runs; ++i) {
        QElapsedTimer t;
        t.start();
        work();
        ms << t.nsecsElapsed() / 1e6;
    }
    std::sort(ms.begin(), ms.end());
    return ms.at(ms.size() / 2);
}

Evaluation measured(double ms, bool device)
{
    Evaluation e;
    e.status = EvalStatus::Ok;
    e.correct = true;
    e.latencyMeanMs = ms;
    e.backend = device ? QStringLiteral("neuron") : QStringLiteral("sim");
    e.host = device ? QStringLiteral("trn#0") : QStringLiteral("local#0");
    return e;
}
} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int sessions = argc > 1 ? QString::fromLatin1(argv[1]).toInt() : 40;
    const int perSession = argc > 2 ? QString::fromLatin1(argv[2]).toInt() : 2500;
    QTextStream out(stdout);
    QTemporaryDir dir;
    // a third argument keeps the workspace there, to look at the query plans (sqlite3 FILE 'EXPLAIN QUERY PLAN ...')
    SessionStore store(argc > 3 ? QString::fromLocal8Bit(argv[3]) : dir.filePath(QStringLiteral("workspace.sqlite")));
    if (!store.open()) {
        out << "bench_store: " << store.lastError() << "\n";
        return 1;
    }
    QElapsedTimer fill;
    fill.start();
    QStringList ids;
    for (int s = 0; s < sessions; ++s) {
        const bool confirms = s % 2 == 1;
        SessionRecord session;
        session.taskName = QStringLiteral("silu");
        session.target = QStringLiteral("trn1");
        store.createSession(session);
        ids << session.id;
        store.transaction([&] {
            Candidate base;
            base.sessionId = session.id;
            base.origin = Candidate::Origin::Baseline;
            base.source = QStringLiteral("def kernel(x):\n    return x\n");
            store.addCandidate(base);
            store.addEvaluation(base.id, measured(1.0, confirms));
            for (int i = 0; i < perSession; ++i) {
                Candidate c;
                c.sessionId = session.id;
                c.iteration = 1 + i / 120;
                c.parentId = base.id;
                c.planIndex = i % 120;
                c.source = QStringLiteral("def kernel(x):\n    return x * %1\n").arg(i + 2);
                if (!store.addCandidate(c))
                    return false;
                const double ms = 0.2 + (i * 7919 % perSession) / double(perSession);
                const bool onDevice = confirms && i % 5 == 0;
                store.addEvaluation(c.id, measured(onDevice ? ms * 1.5 : ms, onDevice));
                if (onDevice)
                    store.addEvaluation(c.id, measured(ms, false), SessionStore::simulatedRun);
                if (i % 20 == 0) {
                    Evaluation again = measured(ms, onDevice);
                    again.correct = i % 40 != 0; // half the re-measured kernels fail it: demoted
                    store.addEvaluation(c.id, again, SessionStore::remeasureRun);
                }
            }
            return true;
        });
    }
    out << "bench_store: " << sessions << " sessions x " << perSession << " candidates ("
        << sessions * (perSession + 1) << " evaluations at run 0), written in " << fill.elapsed() / 1000.0
        << " s\n";
    const QString plain = ids.first(), confirming = ids.at(1);
    for (const auto &[label, id] : {std::pair{QStringLiteral("plain session"), plain},
                                    std::pair{QStringLiteral("confirming session"), confirming}}) {
        QString best;
        const double bestMs = medianMs([&] { best = store.bestCandidate(id).value_or(Candidate{}).id; });
        int iterations = 0;
        const double iterMs = medianMs([&] { iterations = int(store.statistics().iterationSummaries(id).size()); });
        out << "  " << label << ": bestCandidate " << QString::number(bestMs, 'f', 1) << " ms; iterationSummaries ("
            << iterations << " iterations) " << QString::number(iterMs, 'f', 1) << " ms\n";
    }
    int listed = 0;
    const double summariesMs = medianMs([&] { listed = int(store.sessionSummaries().size()); }, 3);
    out << "  sessionSummaries (" << listed << " sessions, each with its best): " << QString::number(summariesMs, 'f', 1)
        << " ms\n";
    return 0;
}
