#include "runcontroller.h"

#include "appcontext.h"
#include "applogging.h"
#include "candidatetab.h"
#include "common/appsettings.h"
#include "editortabs.h"
#include "export/taskdetector.h"
#include "exportdialog.h"
#include "itemmodels/benchmarklistmodel.h"
#include "itemmodels/searchstate.h"
#include "itemmodels/sessionlistmodel.h"
#include "kerneleditor.h"
#include "optimizedialog.h"
#include "profiledock.h"
#include "resultsdock.h"
#include "runtargetbar.h"
#include "searchdock.h"
#include "searchnotifier.h"
#include "sessionsdock.h"
#include "taskquestion.h"
#include "userprompts.h"

#include <QAction>
#include <QMainWindow>
#include <QStatusBar>

RunController::RunController(const WindowParts &parts, const QString &tasksDir)
    : QObject(parts.window), m_parts(parts), m_tasksDir(tasksDir),
      m_notifier(new SearchNotifier(parts.window))
{
    m_hosts = {HostConfig{}};
    m_hosts.first().name = QStringLiteral("local");
    m_benchmark = new QAction(tr("&Benchmark"), this);
    m_benchmark->setShortcut(Qt::Key_F5);
    m_benchmark->setToolTip(tr("Evaluate the active editor's kernel on the host in the toolbar (F5)"));
    m_optimize = new QAction(tr("&Optimize…"), this);
    m_optimize->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_optimize->setToolTip(tr("Start a search for a faster kernel from the active editor's (Ctrl+Shift+O)"));
    m_stop = new QAction(tr("&Stop Search"), this);
    m_stop->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5)); // as a debugger's stop beside its F5
    m_stop->setToolTip(tr("Stop the running search; it can be resumed (Shift+F5)"));
    m_resume = new QAction(tr("&Resume Session"), this);
    m_export = new QAction(tr("&Export Best Kernel…"), this);
    m_export->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    for (QAction *a : {m_benchmark, m_optimize, m_stop, m_resume, m_export})
        a->setShortcutContext(Qt::ApplicationShortcut);

    AppContext *context = parts.context;
    connect(m_benchmark, &QAction::triggered, this, &RunController::benchmark);
    connect(m_optimize, &QAction::triggered, this, &RunController::optimize);
    connect(m_stop, &QAction::triggered, context, &AppContext::stopSearch);
    connect(m_resume, &QAction::triggered, this, [this] { resume(m_parts.context->shownSessionId()); });
    connect(m_export, &QAction::triggered, this, [this] {
        const QString shown = m_parts.context->shownSessionId();
        exportBest(shown.isEmpty() ? m_parts.sessions->selectedSession() : shown);
    });
    connect(parts.search, &SearchDock::candidateActivated, this, &RunController::openCandidate);
    connect(parts.search, &SearchDock::resumeRequested, this, &RunController::resume);
    connect(parts.search, &SearchDock::exportRequested, this, [this](const QString &id) { exportBest(id); });
    connect(parts.search, &SearchDock::exportCandidateRequested, this, &RunController::exportBest);
    connect(parts.sessions, &SessionsDock::openRequested, this, &RunController::openSession);
    connect(parts.sessions, &SessionsDock::resumeRequested, this, &RunController::resume);
    connect(parts.sessions, &SessionsDock::exportRequested, this,
            [this](const QString &id) { exportBest(id); });
    connect(parts.results, &ResultsDock::lineActivated, this, &RunController::goToLine);
    // A Benchmark's result goes to the Profile dock (and the editor's heat gutter) as soon as it lands.
    connect(parts.results, &ResultsDock::finished, this, [this](quint64 job, const Evaluation &evaluation) {
        const BenchmarkListModel::Run *run = m_parts.results->model()->run(job);
        if (!run || !evaluation.ok())
            return;
        m_parts.profile->showEvaluation(evaluation,
                                        tr("%1 · %2 on %3 (%4, %5 size)")
                                            .arg(run->kernel, run->task, run->host, run->target, run->size),
                                        m_parts.results->editorOf(job));
    });
    connect(parts.profile, &ProfileDock::lineActivated, this, &RunController::goToLine);
    connect(parts.profile, &ProfileDock::candidateActivated, this, &RunController::openCandidate);
    connect(context, &AppContext::searchingChanged, this, &RunController::refreshActions);
    connect(context, &AppContext::sessionOpened, this, &RunController::refreshActions);
    connect(context, &AppContext::hostsListed, this,
            [this](const QList<HostConfig> &hosts, const QString &error) {
                m_hosts = hosts;
                m_parts.target->setHosts(hosts);
                if (!error.isEmpty())
                    qCWarning(lcApp).noquote() << error;
            });
    connect(context, &AppContext::searchFailed, this, [this](const QString &error) {
        m_notifier->notify(tr("The search did not start"), error, true);
        m_parts.prompts->warn(m_parts.window, tr("Optimize"), error);
    });
    connect(context, &AppContext::sessionOpenFailed, this, [this](const QString &error) {
        m_parts.prompts->warn(m_parts.window, tr("Open session"), error);
    });
    connect(context, &AppContext::searchFinished, this,
            [this](const QString &sessionId, StopReason reason, const QString &error) {
                // The dock may show another session than the one that ended: name the one that ended.
                const SearchState *state = m_parts.context->search();
                const SessionSummary *summary = m_parts.context->sessions()->session(sessionId);
                const bool shown = state->sessionId() == sessionId;
                const QString task = shown ? state->summary().task : summary ? summary->session.taskName : QString();
                const std::optional<double> speedup =
                    shown ? state->speedup() : summary ? summary->speedup() : std::nullopt;
                const bool problem = StopRules::isFailure(reason);
                QString message = tr("%1 (session %2): %3").arg(task, sessionId.left(8), StopRules::describe(reason));
                if (speedup && !problem)
                    message += tr(", best %1× over the baseline").arg(*speedup, 0, 'f', 2);
                if (!error.isEmpty())
                    message += QStringLiteral(". ") + error;
                m_notifier->notify(problem ? tr("Search failed") : tr("Search ended"), message, problem);
            });
    connect(context, &AppContext::notice, this,
            [this](const QString &message) { m_parts.window->statusBar()->showMessage(message, 15000); });
    context->refreshHosts();
    refreshActions();
}

void RunController::refreshActions()
{
    const bool searching = m_parts.context->isSearching();
    m_stop->setEnabled(searching);
    m_resume->setEnabled(!searching && !m_parts.context->shownSessionId().isEmpty());
}

bool RunController::taskOf(KernelEditor *editor, QJsonObject &ref, QString &name)
{
    const QJsonObject remembered = editor->property("taskRef").toJsonObject();
    if (!remembered.isEmpty()) {
        ref = remembered;
        name = editor->property("taskName").toString();
        return true;
    }
    if (const auto found = TaskDetector::detect(editor->filePath(), editor->text(), m_tasksDir)) {
        ref = found->ref;
        name = found->name;
        return true;
    }
    const std::optional<TaskQuestion::Answer> answer = TaskQuestion::ask(
        m_parts.context, m_parts.prompts, m_parts.window, tr("Benchmark"),
        tr("Which task does %1 solve? Its reference checks the kernel's results. If none does, make one "
           "from this kernel.")
            .arg(editor->displayName()),
        {editor->displayName(), editor->filePath(), editor->text()}, m_tasksDir);
    if (!answer)
        return false;
    if (answer->created)
        m_parts.context->announceTaskCreated(answer->ref.value(QStringLiteral("dir")).toString());
    ref = answer->ref;
    name = answer->name;
    editor->setProperty("taskRef", ref);
    editor->setProperty("taskName", name);
    return true;
}

void RunController::benchmark()
{
    KernelEditor *editor = m_parts.editors->currentEditor();
    if (!editor) {
        m_parts.prompts->warn(
            m_parts.window, tr("Benchmark"),
            tr("Open a kernel first (File › Open, or double-click a task in the Tasks dock)."));
        return;
    }
    if (editor->text().trimmed().isEmpty()) {
        m_parts.prompts->warn(m_parts.window, tr("Benchmark"),
                              tr("%1 is empty: there is no kernel to evaluate.").arg(editor->displayName()));
        return;
    }
    QJsonObject ref;
    QString name;
    if (!taskOf(editor, ref, name)) {
        qCInfo(lcApp).noquote() << "benchmark of" << editor->displayName() << "cancelled: no task chosen";
        return;
    }
    EvalRequest request;
    request.task = ref;
    request.kernelSource = editor->text();
    request.kernelName = editor->displayName();
    request.backend.clear(); // the host's
    request.target = m_parts.target->target();
    request.size = m_parts.target->size();
    request.timeoutSeconds = request.defaultTimeoutSeconds();
    request.timelineCap = benchmarkTimelineCap;
    qCInfo(lcApp).noquote() << "benchmark" << editor->displayName() << "task" << name << "on"
                            << m_parts.target->host() << request.target << request.size;
    m_parts.results->benchmark(editor, request, name, m_parts.target->host());
}

void RunController::optimize()
{
    if (m_parts.context->isSearching()) {
        m_parts.prompts->warn(m_parts.window, tr("Optimize"),
                              tr("A search is already running in this window (session %1); stop it first.")
                                  .arg(m_parts.context->runningSessionId().left(8)));
        return;
    }
    KernelEditor *editor = m_parts.editors->currentEditor();
    if (!editor) {
        m_parts.prompts->warn(
            m_parts.window, tr("Optimize"),
            tr("Open the kernel to optimize first (File › Open, or a task in the Tasks dock)."));
        return;
    }
    OptimizeDialog dialog(m_parts.context, {editor->displayName(), editor->filePath(), editor->text()}, m_hosts,
                          m_tasksDir, m_parts.prompts, m_parts.window);
    connect(&dialog, &OptimizeDialog::taskCreated, this, [this, editor](const QJsonObject &ref, const QString &name) {
        // The editor keeps the task made for it, as a chosen one is kept: F5 then asks no more.
        editor->setProperty("taskRef", ref);
        editor->setProperty("taskName", name);
        m_parts.context->announceTaskCreated(ref.value(QStringLiteral("dir")).toString());
    });
    dialog.setDefaults(m_parts.target->host(), m_parts.target->target(), m_parts.target->size());
    dialog.preferTask(editor->property("taskRef").toJsonObject(), editor->property("taskName").toString());
    connect(&dialog, &OptimizeDialog::modelsRequested, this, [this, &dialog] {
        Q_EMIT modelsRequested();
        dialog.refreshModels();
    });
    if (dialog.exec() != QDialog::Accepted)
        return;
    const OptimizeDialog::Request r = dialog.request();
    qCInfo(lcApp).noquote() << "optimize" << r.task.name << "on" << r.host << r.task.target << r.task.size;
    m_parts.context->startSearch(r.task, r.config, r.host, r.useMemory);
    m_parts.search->show();
    m_parts.search->raise();
}

void RunController::newTask()
{
    const QString title = tr("Optimize Your Own Kernel");
    KernelEditor *editor = m_parts.editors->currentEditor();
    if (!editor) {
        m_parts.prompts->inform(m_parts.window, title,
                                tr("Open your kernel (File › Open), then make a task for it with Help › Optimize "
                                   "Your Own Kernel… or New Task from This Kernel… when Benchmark or Optimize "
                                   "asks for its task.\n\n%1")
                                    .arg(NewTaskWizard::howItWorks()));
        return;
    }
    const std::optional<TaskQuestion::Answer> made =
        TaskQuestion::create(m_parts.context, m_parts.prompts, m_parts.window,
                             {editor->displayName(), editor->filePath(), editor->text()}, m_tasksDir);
    if (!made)
        return;
    editor->setProperty("taskRef", made->ref);
    editor->setProperty("taskName", made->name);
    m_parts.context->announceTaskCreated(made->ref.value(QStringLiteral("dir")).toString());
    m_parts.window->statusBar()->showMessage(
        tr("Task %1 created: Benchmark (F5) and Optimize check %2 against it.").arg(made->name, editor->displayName()),
        15000);
}

void RunController::resume(const QString &sessionId)
{
    if (sessionId.isEmpty())
        return;
    if (m_parts.context->isSearching()) {
        m_parts.prompts->warn(m_parts.window, tr("Resume"),
                              tr("A search is already running in this window; stop it first."));
        return;
    }
    std::optional<SearchConfig> config;
    const SessionSummary *summary = m_parts.context->sessions()->session(sessionId);
    if (summary && summary->session.status == SessionRecord::Status::Finished) {
        // A finished session goes on only with more room.
        std::optional<SearchConfig> base = SearchConfig::fromJson(summary->session.config);
        if (!base)
            base = SearchConfig{};
        const std::optional<int> total =
            m_parts.prompts->askNumber(m_parts.window, tr("Resume"),
                                       tr("Session %1 has finished (%2). Run how many iterations in all?")
                                           .arg(sessionId.left(8), SessionListModel::statusText(*summary)),
                                       base->iterations + 2, base->iterations + 1, 10000);
        if (!total)
            return;
        base->iterations = *total; // patience stays the session's: it counts from the resume (BeamSearch)
        config = base;
    }
    const bool memory = AppSettings::optimizeMemory.value();
    m_parts.context->resumeSession(sessionId, config, memory);
    m_parts.search->show();
    m_parts.search->raise();
}

void RunController::exportBest(const QString &sessionId, const QString &candidateId)
{
    if (sessionId.isEmpty()) {
        m_parts.prompts->warn(
            m_parts.window, tr("Export"),
            tr("There is no session to export from yet: optimize a kernel, or open a session "
               "from the Sessions dock."));
        return;
    }
    const SessionSummary *summary = m_parts.context->sessions()->session(sessionId);
    const QString task = summary ? summary->session.taskName : m_parts.context->search()->summary().task;
    ExportDialog dialog(m_parts.context, m_parts.prompts, sessionId, task, candidateId, m_parts.window);
    dialog.exec();
}

void RunController::openCandidate(const QString &candidateId)
{
    if (const int existing = m_parts.editors->indexOfCandidate(candidateId); existing >= 0) {
        m_parts.editors->setCurrentIndex(existing);
        return;
    }
    const SearchState *state = m_parts.context->search();
    const SearchState::Row *row = state->find(candidateId);
    if (!row)
        return;
    auto *tab = new CandidateTab(row->candidate, state->plan(row->candidate.planId), row->evaluation,
                                 state->speedupOf(*row), m_parts.editors);
    // The tab keeps the session's task, so F5 benchmarks it without asking.
    tab->editor()->setProperty("taskRef", state->summary().taskRef);
    tab->editor()->setProperty("taskName", state->summary().task);
    const int index = m_parts.editors->addTab(tab, tab->editor()->title());
    if (row->evaluation && row->evaluation->ok())
        m_parts.profile->showEvaluation(*row->evaluation, tr("%1 of session %2").arg(CandidateTab::title(row->candidate), row->candidate.sessionId.left(8)), tab->editor());
    m_parts.editors->setTabToolTip(
        index, tr("Read-only: %1 of session %2").arg(row->candidate.id, row->candidate.sessionId));
    m_parts.editors->setCurrentIndex(index);
}

void RunController::goToLine(KernelEditor *editor, int line)
{
    if (!editor || line <= 0)
        return;
    for (int i = 0; i < m_parts.editors->count(); ++i)
        if (m_parts.editors->editorAt(i) == editor)
            m_parts.editors->setCurrentIndex(i);
    editor->goToLine(line);
}

void RunController::openSession(const QString &sessionId)
{
    if (sessionId.isEmpty())
        return;
    m_parts.context->openSession(sessionId);
    m_parts.search->show();
    m_parts.search->raise();
}
