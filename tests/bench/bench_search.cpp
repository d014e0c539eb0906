// Benchmark (CTest label bench): one optimization iteration at the paper's shape, B=6, N=12, K=2, against a
// stand-in model server (ScriptedLlmServer on loopback) that answers every call after 1 s. Prints the wall
// time of the iteration's LLM phase (its first planner call sent to its last executor reply) next to the
// 72 s a one-plan-at-a-time executor needs (B x N plans, 1 s each, the K samples of a plan overlapping), the
// whole iteration, and the orchestration overhead per candidate (time in the search's own code: prompts,
// parsing, selection, store writes; not waiting for models or hosts). Evaluations are real (local host, 2
// slots, nkisim, small size) and run meanwhile. Each row runs twice: as the search ran before issue 18 (every
// candidate checked, each evaluation a fresh sandboxed Python: --check-all, ACCELOPT_RUNNER_NO_ZYGOTE=1) and
// as it runs now (the cascade; evaluations forked from the slot's zygote), and says whether both chose the
// same beam (by latency). Asserts nothing.
//
// Iteration 1 grows the beam: its executor replies are the swiglu fixture's fast1 kernel with a distinct
// module-level constant each, 24 distinct correct kernels, so iteration 2 starts with a full beam of 6 and
// is the one measured. Each reply also loads a tile 0 to 20 extra times (by its seed), so the candidates'
// latencies spread from 62 to 84 us: most are slower than the beam and, under the cascade, never checked. The
// beam is compared by latency, as ties between kernels of equal latency are broken by candidate ids, which differ
// between sessions.
#include "agents/promptlibrary.h"
#include "common/datapaths.h"
#include "hosts/hostconfig.h"
#include "hosts/hostpool.h"
#include "hosts/localhost.h"
#include "llm/chatclient.h"
#include "scriptedagents.h"
#include "scriptedllmserver.h"
#include "search/beamsearch.h"
#include "store/sessionstore.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QTextStream>

#include <algorithm>

namespace {

QString read(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return QString::fromUtf8(f.readAll());
}

// fast1 with `loads` extra loads of a weight tile before it returns: the same result, a little later.
QString padded(QString kernel, int loads)
{
    if (loads == 0)
        return kernel;
    const QString pad =
        QStringLiteral("    for _pad in nl.affine_range(%1):\n"
                       "        junk = nl.ndarray((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.sbuf, "
                       "name=\"junk\")\n"
                       "        junk[ip, inb] = nl.load(w_up[0, ip, inb], dtype=np.float32)\n"
                       "    return out\n")
            .arg(loads);
    kernel.replace(QStringLiteral("    return out\n"), pad);
    return kernel;
}

struct Figures
{
    double llmPhaseS = 0;
    double iterationS = 0;
    int plannerCalls = 0;
    int executorCalls = 0;
    int maxInFlight = 0;
    double overheadPerCandidateMs = 0;
    double overheadCpuPerCandidateMs = 0;
    int candidates = 0;
    double totalS = 0;
    QList<double> beam; // the beam's latencies (ms), fastest first
};

Figures runOnce(int concurrency, bool before, const PromptLibrary &prompts)
{
    if (before)
        qputenv("ACCELOPT_RUNNER_NO_ZYGOTE", "1");
    else
        qunsetenv("ACCELOPT_RUNNER_NO_ZYGOTE");
    const QString tasks = QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/swiglu/");
    const QString fast = read(QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/fixtures/optimize/swiglu/fast1.py"));
    QTemporaryDir dir;
    SessionStore store(dir.filePath(QStringLiteral("workspace.sqlite")));
    if (!store.open())
        qFatal("%s", qPrintable(store.lastError()));

    ScriptedLlmServer server;
    server.start();
    QElapsedTimer clock;
    clock.start();
    int iteration = 0;
    qint64 phaseStart = -1, lastExecutor = -1;
    Figures f;
    server.setHandler([&](const ScriptedLlmServer::Request &r) {
        const QString role = ScriptedAgents::roleOf(r);
        const qint64 seed = r.json.value(QStringLiteral("seed")).toInteger();
        QString content;
        if (role == QStringLiteral("planner")) {
            if (iteration == 2) {
                ++f.plannerCalls;
                if (phaseStart < 0)
                    phaseStart = clock.elapsed();
            }
            content = QStringLiteral(
                "Title: Compute SiLU on ScalarE from PSUM\n1. Use nl.silu on the accumulator.\n");
        } else if (role == QStringLiteral("executor") || role == QStringLiteral("fixer")) {
            if (iteration == 2 && role == QStringLiteral("executor")) {
                ++f.executorCalls;
                lastExecutor = clock.elapsed();
            }
            content = QStringLiteral("```python\n%1\n_SAMPLE = %2\n```\n")
                          .arg(padded(fast, int(seed % 6) * 4))
                          .arg(seed);
        } else {
            content = QStringLiteral(
                          "Title: t%1\nLesson: l%1\nBefore:\n```python\na\n```\nAfter:\n```python\nb\n```\n")
                          .arg(seed);
        }
        ScriptedLlmServer::Response response = ScriptedLlmServer::completion(content);
        response.delayMs = 1000;
        return response;
    });

    HostPool pool;
    HostConfig c;
    c.name = QStringLiteral("local");
    c.slotCount = 2;
    c.python = QStringLiteral("/usr/bin/python3");
    pool.addHost(new LocalHost(c, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench")));
    pool.start();

    Endpoint e;
    e.name = QStringLiteral("stand-in");
    e.baseUrl = server.baseUrl();
    e.model = QStringLiteral("stand-in-model");
    e.concurrency = concurrency;
    e.timeoutMs = 120000;
    ChatClient client(e);
    client.setRecorder(&store);
    BeamSearch search(&pool, &store, &prompts);
    search.setClient(&client);

    BeamSearch::Task task;
    task.name = QStringLiteral("swiglu");
    task.ref = {{QStringLiteral("name"), QStringLiteral("swiglu")}};
    task.reference = read(tasks + QStringLiteral("reference.py"));
    task.kernel = read(tasks + QStringLiteral("baseline.py"));
    task.size = QStringLiteral("small");
    SearchConfig config; // the paper's B=6, N=12, K=2
    config.iterations = 2;
    config.seed = 1;
    config.checkAll = before;
    qint64 iterationStart = 0, iterationEnd = 0;
    QObject::connect(&search, &BeamSearch::event, [&](const SearchEvent &event) {
        const auto *selected = event.as<SearchEvents::BeamSelected>();
        if (!selected)
            return;
        const int done = selected->iteration;
        iteration = done + 1;
        if (done == 1)
            iterationStart = clock.elapsed();
        if (done == 2)
            iterationEnd = clock.elapsed();
    });
    QEventLoop loop;
    QObject::connect(&search, &BeamSearch::finished, &loop, &QEventLoop::quit);
    if (!search.start(task, config))
        qFatal("%s", qPrintable(search.lastError()));
    loop.exec();
    pool.stop();
    f.llmPhaseS = (lastExecutor + 1000 - phaseStart) / 1000.0;
    f.iterationS = (iterationEnd - iterationStart) / 1000.0;
    f.maxInFlight = server.maxInFlight();
    f.candidates = search.candidateCount();
    f.overheadPerCandidateMs = search.orchestrationSeconds() * 1000.0 / std::max(1, f.candidates);
    f.overheadCpuPerCandidateMs = search.orchestrationCpuSeconds() * 1000.0 / std::max(1, f.candidates);
    f.totalS = clock.elapsed() / 1000.0;
    for (const QString &id : search.beam())
        f.beam << store.evaluation(id)->latencyMeanMs.value_or(0);
    if (search.beam().size() != 6)
        QTextStream(stderr) << "warning: iteration 2 ran with a beam of " << search.beam().size() << "\n";
    qunsetenv("ACCELOPT_RUNNER_NO_ZYGOTE");
    return f;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("accelopt.*=false\naccelopt.*.warning=true"));
    PromptLibrary prompts;
    if (!prompts.load(DataPaths::promptsDir()))
        qFatal("%s", qPrintable(prompts.errors().join(u'\n')));
    QTextStream out(stdout);
    out << "B=6 N=12 K=2, every model call answered after 1 s; evaluations on the local host (2 slots, "
           "nkisim, "
           "swiglu small)\n";
    out << "one-plan-at-a-time executor: 72 plans x 1 s = 72 s for the LLM phase of one full-beam "
           "iteration\n\n";
    out << "search     concurrency  planner  executor  max in flight  LLM phase (s)  iteration (s)  "
           "candidates  "
           "overhead/candidate wall (ms)  cpu (ms)\n";
    for (int concurrency : {16, 64}) {
        QList<double> beams[2];
        double iterationS[2] = {0, 0};
        for (const bool before : {true, false}) {
            const Figures f = runOnce(concurrency, before, prompts);
            beams[before ? 0 : 1] = f.beam;
            iterationS[before ? 0 : 1] = f.iterationS;
            out << QStringLiteral("%1  %2  %3  %4  %5  %6  %7  %8  %9  %10\n")
                       .arg(before ? QStringLiteral("before") : QStringLiteral("now"), -9)
                       .arg(concurrency, 11)
                       .arg(f.plannerCalls, 7)
                       .arg(f.executorCalls, 8)
                       .arg(f.maxInFlight, 13)
                       .arg(f.llmPhaseS, 13, 'f', 1)
                       .arg(f.iterationS, 13, 'f', 1)
                       .arg(f.candidates, 10)
                       .arg(f.overheadPerCandidateMs, 28, 'f', 2)
                       .arg(f.overheadCpuPerCandidateMs, 8, 'f', 2);
            out.flush();
        }
        QStringList latencies;
        for (double ms : std::as_const(beams[1]))
            latencies << QString::number(ms * 1000.0, 'f', 2);
        out << QStringLiteral("  iteration %1x faster; the same beam: %2 (latencies in us: %3)\n")
                   .arg(iterationS[0] / std::max(iterationS[1], 1e-9), 0, 'f', 2)
                   .arg(beams[0] == beams[1] && !beams[0].isEmpty() ? QStringLiteral("yes")
                                                                    : QStringLiteral("NO"),
                        latencies.join(QStringLiteral(", ")));
        out.flush();
    }
    return 0;
}
