#include "searchconsole.h"

#include "clisshprompter.h"
#include "console.h"
#include "search/beamsearch.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTimer>

#include <csignal>

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void onInterrupt(int)
{
    g_interrupted = 1;
}

QString ms(const std::optional<double> &v)
{
    return v ? QStringLiteral("%1 ms").arg(*v, 0, 'g', 4) : QStringLiteral("- ms");
}

QString percent(const std::optional<double> &v)
{
    return v ? QStringLiteral("%1 % of peak").arg(*v, 0, 'f', 1) : QStringLiteral("- % of peak");
}

std::optional<double> bestOf(const SearchEvents::Totals &t, std::optional<double> Evaluation::*field)
{
    return t.best ? (*t.best).*field : std::nullopt;
}

} // namespace

SearchConsole::SearchConsole(const Options &options) : m_options(options) {}
SearchConsole::~SearchConsole() = default;

void SearchConsole::addOptions(QCommandLineParser &parser)
{
    parser.addOptions({
        {QStringLiteral("host"),
         QStringLiteral("Host to evaluate on (see 'accelopt hosts list'; default: local, or the session's)."),
         QStringLiteral("NAME")},
        {QStringLiteral("jobs"), QStringLiteral("Parallel evaluations on a local host (default: 2)."),
         QStringLiteral("N"), QStringLiteral("2")},
        {QStringLiteral("json"),
         QStringLiteral("Print one JSON object per event instead of progress lines.")},
        {QStringLiteral("no-memory"),
         QStringLiteral("Neither read nor grow the optimization memory (ACCELOPT_MEMORY_DB).")},
        {QStringLiteral("llm-config"),
         QStringLiteral("The LLM settings file (default: ACCELOPT_LLM_CONFIG, else the per-user llm.json)."),
         QStringLiteral("FILE")},
    });
}

bool SearchConsole::readOptions(const QCommandLineParser &parser, Options &options, QString &error)
{
    options.run.host = parser.value(QStringLiteral("host"));
    bool ok = false;
    options.run.jobs = parser.value(QStringLiteral("jobs")).toInt(&ok);
    if (!ok || options.run.jobs < 1 || options.run.jobs > 64) {
        error = QStringLiteral("--jobs must be a whole number from 1 to 64");
        return false;
    }
    options.json = parser.isSet(QStringLiteral("json"));
    options.run.useMemory = !parser.isSet(QStringLiteral("no-memory"));
    options.run.llmConfig = parser.value(QStringLiteral("llm-config"));
    if (!options.run.llmConfig.isEmpty() && !QFileInfo(options.run.llmConfig).isFile()) {
        error = QStringLiteral("--llm-config %1 is not a file").arg(options.run.llmConfig);
        return false;
    }
    options.run.prompter = std::make_shared<CliSshPrompter>();
    return true;
}

int SearchConsole::start(const SearchTask &task, const SearchConfig &config)
{
    m_run = std::make_unique<OptimizationRun>(m_options.run);
    QObject::connect(m_run.get(), &OptimizationRun::event, [this](const SearchEvent &e) { print(e); });
    return drive(QStringLiteral("optimize"), m_run->start(task, config));
}

int SearchConsole::resume(const QString &sessionPrefix, const std::optional<SearchConfig> &config)
{
    m_run = std::make_unique<OptimizationRun>(m_options.run);
    QObject::connect(m_run.get(), &OptimizationRun::event, [this](const SearchEvent &e) { print(e); });
    return drive(QStringLiteral("resume"), m_run->resume(sessionPrefix, config));
}

int SearchConsole::drive(const QString &command, OptimizationRun::Begin begin)
{
    if (begin == OptimizationRun::Begin::NothingToDo) {
        Console::out() << m_run->error() << "\n";
        return 0;
    }
    if (begin == OptimizationRun::Begin::Failed) {
        Console::err() << "accelopt " << command << ": " << m_run->error() << "\n";
        return 1;
    }
    QObject::connect(m_run.get(), &OptimizationRun::notice,
                     [](const QString &message) { Console::err() << "accelopt: " << message << "\n"; });
    g_interrupted = 0;
    auto previousInt = std::signal(SIGINT, onInterrupt);
    auto previousTerm = std::signal(SIGTERM, onInterrupt);
    std::optional<StopReason> reason;
    QString failure;
    QEventLoop loop;
    QObject::connect(m_run.get(), &OptimizationRun::finished, &loop, [&](StopReason r) {
        reason = r;
        loop.quit();
    });
    QObject::connect(m_run.get(), &OptimizationRun::failed, &loop, [&](const QString &error) {
        failure = error;
        loop.quit();
    });
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (!g_interrupted)
            return;
        g_interrupted = 0;
        if (!m_run->sessionId().isEmpty())
            Console::err() << "accelopt: stopping; the session can be resumed with 'accelopt resume "
                           << m_run->sessionId().left(8) << "'\n";
        m_run->stop();
    });
    poll.start(100);
    loop.exec();
    poll.stop();
    std::signal(SIGINT, previousInt);
    std::signal(SIGTERM, previousTerm);
    Console::out().flush();
    if (!reason) {
        Console::err() << "accelopt " << command << ": " << failure << "\n";
        return 1;
    }
    if (*reason == StopReason::Stopped)
        return 130;
    return StopRules::isFailure(*reason) ? 1 : 0;
}

void SearchConsole::print(const SearchEvent &event)
{
    using namespace SearchEvents;
    if (m_options.json) {
        // Every step as it happens; the CLI's own four ("session", "baseline", "iteration", "finished")
        // among them, with the fields they always had.
        if (event.as<LlmCallStarted>() || event.as<EvaluationStarted>())
            return; // the replies and results carry what a reader needs
        QJsonObject o = event.toJson();
        if (event.as<Stopped>())
            o.insert(QStringLiteral("wall_s"), event.elapsedSeconds);
        Console::out() << QJsonDocument(o).toJson(QJsonDocument::Compact) << "\n";
        Console::out().flush();
        return;
    }
    if (const auto *started = event.as<SessionStarted>()) {
        const SearchConfig &c = started->config;
        Console::out() << (started->resumed ? "resuming session " : "session ") << event.sessionId << ": "
                       << started->task.name << " on " << started->task.target << " ("
                       << started->task.backend << ", host " << started->task.host << ", size "
                       << started->task.size << "), B=" << c.beamWidth << " N=" << c.plansPerKernel
                       << " K=" << c.samplesPerPlan << " T=" << c.iterations << " F=" << c.fixRounds << "\n";
    } else if (const auto *baseline = event.as<BaselineEvaluated>()) {
        Console::out() << "baseline: " << baseline->evaluation.statusName() << ", "
                       << ms(baseline->evaluation.latencyMeanMs) << ", "
                       << percent(baseline->evaluation.percentOfPeak) << "\n";
    } else if (const auto *fix = event.as<FixChainStopped>()) {
        Console::out() << fix->reason << "\n";
    } else if (const auto *r = event.as<BestRemeasured>()) {
        const Evaluation &e = r->evaluation;
        const QString where = QStringLiteral("on fresh seeds at the %1 size").arg(r->size);
        const QString why = e.error.isEmpty() ? QString() : QStringLiteral(": ") + e.error.left(300);
        if (r->demoted)
            Console::out() << QStringLiteral(
                                  "best kernel %1 failed its re-measurement %2 (%3%4): demoted, it is "
                                  "not reported or exported as the best\n")
                                  .arg(r->candidateId.left(8), where,
                                       e.ok() ? QStringLiteral("incorrect") : e.statusName(), why);
        else if (e.ok())
            Console::out() << QStringLiteral("best kernel %1 re-measured %2: correct, %3\n")
                                  .arg(r->candidateId.left(8), where, ms(e.latencyMeanMs));
        else
            Console::out() << QStringLiteral(
                                  "best kernel %1 could not be re-measured %2 (%3%4): kept as measured\n")
                                  .arg(r->candidateId.left(8), where, e.statusName(), why);
    } else if (const auto *done = event.as<IterationFinished>()) {
        const Totals &t = done->totals;
        const QString unchecked =
            (done->unchecked > 0 ? QStringLiteral(", %1 slower, not checked").arg(done->unchecked) : QString()) +
            (t.confirmOn.isEmpty() ? QString()
                                   : QStringLiteral(", %1 simulated only").arg(t.simulatedOnly));
        Console::out() << QStringLiteral("iteration %1/%2: best %3 (%4x), %5, %6 candidates (%7 correct%8), "
                                         "cost $%9\n")
                              .arg(done->iteration)
                              .arg(t.iterations)
                              .arg(ms(bestOf(t, &Evaluation::latencyMeanMs)))
                              .arg(t.speedup.value_or(0), 0, 'f', 2)
                              .arg(percent(bestOf(t, &Evaluation::percentOfPeak)))
                              .arg(done->candidates)
                              .arg(done->usable)
                              .arg(unchecked)
                              .arg(t.costUsd, 0, 'f', 4);
    } else if (const auto *stopped = event.as<Stopped>()) {
        const Totals &t = stopped->totals;
        const QString shortId = event.sessionId.left(8);
        Console::out() << "finished: " << StopRules::describe(stopped->reason) << "\n";
        if (!stopped->error.isEmpty())
            Console::out() << "  " << stopped->error << "\n";
        if (t.best)
            Console::out() << QStringLiteral("  best: %1 (%2x over the baseline), %3, candidate %4\n")
                                  .arg(ms(t.best->latencyMeanMs))
                                  .arg(t.speedup.value_or(0), 0, 'f', 2)
                                  .arg(percent(t.best->percentOfPeak), t.bestCandidateId);
        if (t.reused > 0)
            Console::out() << "  " << t.reused
                           << " evaluations reused from identical kernels of the session\n";
        if (!t.confirmOn.isEmpty())
            Console::out() << QStringLiteral("  confirmed on %1: %2 candidates measured on the device, %3 "
                                             "simulated only (device evaluations saved)\n")
                                  .arg(t.confirmOn)
                                  .arg(t.deviceEvaluations)
                                  .arg(t.simulatedOnly);
        Console::out()
            << QStringLiteral("  %1 LLM calls, %2 tokens, cost $%3%4\n")
                   .arg(stopped->llmCalls)
                   .arg(t.tokens)
                   .arg(t.costUsd, 0, 'f', 4)
                   .arg(stopped->callsWithoutCost
                            ? QStringLiteral(" (+%1 calls of unknown cost)").arg(stopped->callsWithoutCost)
                            : QString());
        if (stopped->reason == StopReason::Stopped)
            Console::out() << "  resume with: accelopt resume " << shortId << "\n";
        if (t.best && stopped->stored) // a lost session's id names nothing to export
            Console::out() << "  export with: accelopt export " << shortId << " --to DIR\n";
    } else {
        return;
    }
    Console::out().flush();
}
