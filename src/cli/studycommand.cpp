#include "studycommand.h"

#include "clisshprompter.h"
#include "console.h"
#include "store/sessionstore.h"
#include "study/studyresult.h"
#include "study/studyrunner.h"

#include <QCommandLineParser>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>
#include <QTimer>

#include <csignal>

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void onStudyInterrupt(int)
{
    g_interrupted = 1;
}

const char *armHelp =
    "An arm, NAME=SPEC (repeat --arm for each). SPEC:\n"
    "  beam[,width=B][,plans=N][,samples=K][,iterations=T][,memory=on|off][,models=M]\n"
    "  sample[,n=N][,models=M]   (N independent plan->kernel samples from the baseline, best kept)\n"
    "M: ROLE:MEMBER[+MEMBER...][;ROLE:...], ROLE planner|executor|fixer|summarizer|all,\n"
    "MEMBER ENDPOINT[/MODEL][@WEIGHT] (an ensemble by weight; endpoints from llm.json).\n"
    "e.g. --arm mem=beam --arm nomem=beam,memory=off --arm rs=sample,n=32,models=all:small";

int usage(const QString &text)
{
    Console::err() << "accelopt study: " << text << "\n";
    return 2;
}

bool writeText(const QString &path, const QString &text, QString &error)
{
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(text.toUtf8()) < 0 || !out.commit()) {
        error = QStringLiteral("cannot write %1: %2").arg(path, out.errorString());
        return false;
    }
    return true;
}

} // namespace

int StudyCommand::run(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        summary() +
        QStringLiteral("\nEach run (task x arm x repeat) gets the same budget, spent in rounds: each round "
                       "gives every run one slice, so a stop leaves the arms comparable. Each run is an "
                       "ordinary session (accelopt sessions list). The result: per task and arm the best "
                       "% of peak and speedup (mean [least-most] over the repeats) against the cost."));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("task"), QStringLiteral("The task to study."), QStringLiteral("T")},
        {QStringLiteral("tasks"), QStringLiteral("Several tasks, comma-separated."), QStringLiteral("A,B")},
        {QStringLiteral("budget-usd"), QStringLiteral("Money per run (every model must have a price)."),
         QStringLiteral("X")},
        {QStringLiteral("budget-tokens"), QStringLiteral("Prompt + completion tokens per run."),
         QStringLiteral("N")},
        {QStringLiteral("budget-evals"), QStringLiteral("Fresh evaluations per run (the baseline counts)."),
         QStringLiteral("N")},
        {QStringLiteral("arm"), QString::fromLatin1(armHelp), QStringLiteral("NAME=SPEC")},
        {QStringLiteral("repeats"), QStringLiteral("Runs of each arm (seeds S, S+1, ...): the spread."),
         QStringLiteral("R"), QStringLiteral("1")},
        {QStringLiteral("slices"), QStringLiteral("Rounds the budget is spent in (default 4)."),
         QStringLiteral("S"), QStringLiteral("4")},
        {QStringLiteral("seed"), QStringLiteral("The first repeat's seed (default 1)."), QStringLiteral("S"),
         QStringLiteral("1")},
        {QStringLiteral("size"), QStringLiteral("small or full (default small)."), QStringLiteral("SIZE"),
         QStringLiteral("small")},
        {QStringLiteral("target"), QStringLiteral("trn1, trn2 or trn3 (default trn1)."), QStringLiteral("T"),
         QStringLiteral("trn1")},
        {QStringLiteral("host"), QStringLiteral("Host to evaluate on (default: local)."),
         QStringLiteral("NAME")},
        {QStringLiteral("jobs"), QStringLiteral("Parallel evaluations on a local host (default: 2)."),
         QStringLiteral("N"), QStringLiteral("2")},
        {QStringLiteral("llm-config"), QStringLiteral("The LLM settings the arms' models come from."),
         QStringLiteral("FILE")},
        {QStringLiteral("resume"), QStringLiteral("Go on with a stopped or crashed study."),
         QStringLiteral("ID")},
        {QStringLiteral("show"), QStringLiteral("Print a study's result as it stands."),
         QStringLiteral("ID")},
        {QStringLiteral("json"), QStringLiteral("Print the result as JSON (with the chart's data).")},
        {QStringLiteral("csv"), QStringLiteral("Also write one CSV line per run to FILE."),
         QStringLiteral("FILE")},
    });
    if (!parser.parse(QStringList{QStringLiteral("accelopt study")} + arguments))
        return usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        Console::out() << parser.helpText();
        return 0;
    }
    if (!parser.positionalArguments().isEmpty())
        return usage(QStringLiteral("unexpected '%1'; arms are given as --arm NAME=SPEC")
                         .arg(parser.positionalArguments().first()));
    const bool resuming = parser.isSet(QStringLiteral("resume"));
    const bool showing = parser.isSet(QStringLiteral("show"));
    const QString csvPath = parser.value(QStringLiteral("csv"));
    const bool json = parser.isSet(QStringLiteral("json"));

    StudyState state;
    if (!resuming && !showing) {
        QStringList tasks;
        if (parser.isSet(QStringLiteral("task")))
            tasks << parser.value(QStringLiteral("task"));
        for (const QString &t : parser.value(QStringLiteral("tasks")).split(u',', Qt::SkipEmptyParts))
            tasks << t.trimmed();
        tasks.removeDuplicates();
        if (tasks.isEmpty())
            return usage(QStringLiteral("give the task to study: --task T (or --tasks A,B)"));
        state.tasks = tasks;
        int budgets = 0;
        for (const auto &[option, kind] :
             {std::pair{QStringLiteral("budget-usd"), StudyBudget::Kind::Usd},
              std::pair{QStringLiteral("budget-tokens"), StudyBudget::Kind::Tokens},
              std::pair{QStringLiteral("budget-evals"), StudyBudget::Kind::Evaluations}}) {
            if (!parser.isSet(option))
                continue;
            ++budgets;
            bool ok = false;
            state.budget.kind = kind;
            state.budget.amount = parser.value(option).toDouble(&ok);
            if (!ok)
                return usage(QStringLiteral("--%1 '%2' is not a number").arg(option, parser.value(option)));
        }
        if (budgets != 1)
            return usage(QStringLiteral("give exactly one budget: --budget-usd X, --budget-tokens N or "
                                        "--budget-evals N (each run gets all of it)"));
        bool ok = false;
        state.budget.slices = parser.value(QStringLiteral("slices")).toInt(&ok);
        if (!ok)
            return usage(QStringLiteral("--slices must be a whole number"));
        state.repeats = parser.value(QStringLiteral("repeats")).toInt(&ok);
        if (!ok)
            return usage(QStringLiteral("--repeats must be a whole number"));
        state.seed = parser.value(QStringLiteral("seed")).toInt(&ok);
        if (!ok || state.seed < 1)
            return usage(QStringLiteral("--seed must be a whole number from 1"));
        state.jobs = parser.value(QStringLiteral("jobs")).toInt(&ok);
        if (!ok || state.jobs < 1 || state.jobs > 64)
            return usage(QStringLiteral("--jobs must be a whole number from 1 to 64"));
        state.size = parser.value(QStringLiteral("size"));
        if (state.size != QStringLiteral("small") && state.size != QStringLiteral("full"))
            return usage(QStringLiteral("--size must be small or full, not '%1'").arg(state.size));
        state.target = parser.value(QStringLiteral("target"));
        state.host = parser.value(QStringLiteral("host"));
        for (const QString &a : parser.values(QStringLiteral("arm"))) {
            QString error;
            const std::optional<ArmSpec> arm = ArmSpec::parse(a, &error);
            if (!arm)
                return usage(error);
            state.arms << *arm;
        }
        if (state.arms.isEmpty())
            return usage(QStringLiteral("give at least one arm: --arm NAME=SPEC (see --help for SPEC)"));
        if (const QStringList p = state.problems(); !p.isEmpty())
            return usage(p.join(QStringLiteral("; ")));
    }
    const QString llmConfig = parser.value(QStringLiteral("llm-config"));
    if (!llmConfig.isEmpty() && !QFileInfo(llmConfig).isFile())
        return usage(QStringLiteral("--llm-config %1 is not a file").arg(llmConfig));

    SessionStore store;
    if (!store.open()) {
        Console::err() << "accelopt study: cannot open the workspace database: " << store.lastError() << "\n";
        return 1;
    }
    const QString dir = StudyState::studiesDir(store.path());
    const auto report = [&](const StudyState &s) {
        const StudyResult result(s);
        if (json)
            Console::out() << QJsonDocument(result.toJson()).toJson(QJsonDocument::Compact) << "\n";
        else
            Console::out() << result.table();
        if (!csvPath.isEmpty()) {
            QString error;
            if (!writeText(csvPath, result.csv(), error)) {
                Console::err() << "accelopt study: " << error << "\n";
                return false;
            }
        }
        return true;
    };
    if (showing) {
        QString error;
        const std::optional<StudyState> s =
            StudyState::load(dir, parser.value(QStringLiteral("show")), &error);
        if (!s) {
            Console::err() << "accelopt study: " << error << "\n";
            return 1;
        }
        return report(*s) ? 0 : 1;
    }

    StudyRunner::Options options;
    options.llmConfig = llmConfig;
    options.prompter = std::make_shared<CliSshPrompter>();
    StudyRunner runner(&store, dir, options);
    QObject::connect(&runner, &StudyRunner::notice,
                     [](const QString &message) { Console::err() << "accelopt: " << message << "\n"; });
    QObject::connect(&runner, &StudyRunner::turnFinished, [&runner](int index, int round) {
        const StudyState &s = runner.state();
        const StudyState::Run &run = s.runs.at(index);
        const RunMeasure &m = run.checkpoints.last().measure;
        Console::err() << "study " << s.id << " round " << round << "/" << s.budget.slices << ": " << run.arm
                       << " on " << run.task << " (repeat " << run.repeat + 1 << ", session "
                       << run.sessionId.left(8) << "): best "
                       << (m.bestPercentOfPeak ? QString::number(*m.bestPercentOfPeak, 'f', 2)
                                               : QStringLiteral("-"))
                       << " % of peak, " << m.evaluations << " evaluations, " << m.tokens << " tokens"
                       << (run.done ? QStringLiteral(" (ended: %1)").arg(run.stopReason) : QString()) << "\n";
    });
    const bool begun = resuming ? runner.resume(parser.value(QStringLiteral("resume"))) : runner.start(state);
    if (!begun) {
        Console::err() << "accelopt study: " << runner.error() << "\n";
        return 1;
    }
    if (!resuming)
        Console::err() << "study " << runner.state().id << " started (" << runner.state().runs.size()
                       << " runs); resume it with 'accelopt study --resume " << runner.state().id << "'\n";
    g_interrupted = 0;
    auto previousInt = std::signal(SIGINT, onStudyInterrupt);
    auto previousTerm = std::signal(SIGTERM, onStudyInterrupt);
    bool completed = false;
    QEventLoop loop;
    QObject::connect(&runner, &StudyRunner::finished, &loop, [&](bool done) {
        completed = done;
        loop.quit();
    });
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (g_interrupted) {
            g_interrupted = 0;
            runner.stop();
        }
    });
    poll.start(100);
    loop.exec();
    poll.stop();
    std::signal(SIGINT, previousInt);
    std::signal(SIGTERM, previousTerm);
    const bool written = report(runner.state());
    if (!completed) {
        Console::err() << "accelopt study: " << runner.error() << "\n";
        return runner.error().startsWith(QStringLiteral("stopped")) ? 130 : 1;
    }
    return written ? 0 : 1;
}
