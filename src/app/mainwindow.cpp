#include "mainwindow.h"

#include "aboutdialog.h"
#include "appcontext.h"
#include "applogging.h"
#include "common/appsettings.h"
#include "common/datapaths.h"
#include "common/recentfiles.h"
#include "comparecontroller.h"
#include "defaultlayout.h"
#include "editorcommands.h"
#include "editortabs.h"
#include "export/taskdetector.h"
#include "findbar.h"
#include "guisshprompter.h"
#include "helptopics.h"
#include "hostsdialog.h"
#include "hoststatuswidget.h"
#include "kerneleditor.h"
#include "logdock.h"
#include "memorydock.h"
#include "modelsdialog.h"
#include "newtaskwizard.h"
#include "opentabs.h"
#include "portcontroller.h"
#include "profiledock.h"
#include "resultsdock.h"
#include "runcontroller.h"
#include "runtargetbar.h"
#include "searchdock.h"
#include "sessionsdock.h"
#include "studydock.h"
#include "tasksdock.h"
#include "theme.h"
#include "userprompts.h"
#include "welcomepage.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QUndoStack>
#include <QMenuBar>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QThread>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace {
constexpr int layoutVersion =
    5; // bump when docks are added or renamed, so an old saved state is not misapplied

Engine::Settings engineSettings(QWidget *window)
{
    Engine::Settings settings;
    settings.prompter = std::make_shared<GuiSshPrompter>(window);
    // One simulator worker per core, as `accelopt --jobs` defaults to 2 on a laptop.
    settings.localSlots = std::clamp(QThread::idealThreadCount(), 1, 8);
    return settings;
}
} // namespace

MainWindow::MainWindow(std::shared_ptr<UserPrompts> prompts, QWidget *parent)
    : QMainWindow(parent), m_prompts(prompts ? std::move(prompts) : std::make_shared<UserPrompts>()),
      m_context(new AppContext(engineSettings(this), this))
{
    setObjectName(QStringLiteral("MainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/accelopt.svg")));
    setAcceptDrops(true);
    setDockNestingEnabled(true);

    // The editors and, while no tab is open, the welcome page in their place: an empty grey area tells a
    // first-time user nothing.
    m_center = new QStackedWidget(this);
    auto *editorArea = new QWidget(m_center); // the tabs with the find bar under them
    m_editors = new EditorTabs(m_prompts.get(), editorArea);
    m_editorCommands = new EditorCommands(m_editors, m_prompts.get(), editorArea);
    auto *areaLayout = new QVBoxLayout(editorArea);
    areaLayout->setContentsMargins(0, 0, 0, 0);
    areaLayout->setSpacing(0);
    areaLayout->addWidget(m_editors, 1);
    areaLayout->addWidget(m_editorCommands->findBar());
    m_welcome = new WelcomePage(m_context, m_center);
    m_welcome->setTasksDir(DataPaths::tasksDir());
    m_center->addWidget(m_welcome);
    m_center->addWidget(editorArea);
    setCentralWidget(m_center);
    connect(m_editors, &EditorTabs::countChanged, this, [this, editorArea](int count) {
        m_center->setCurrentWidget(count > 0 ? editorArea : static_cast<QWidget *>(m_welcome));
    });

    m_tasksDock = new TasksDock(this);
    addDockWidget(Qt::LeftDockWidgetArea, m_tasksDock);
    m_sessionsDock = new SessionsDock(m_context, m_prompts.get(), this);
    addDockWidget(Qt::LeftDockWidgetArea, m_sessionsDock);
    m_searchDock = new SearchDock(m_context, this);
    addDockWidget(Qt::RightDockWidgetArea, m_searchDock);
    m_resultsDock = new ResultsDock(m_context, this);
    addDockWidget(Qt::BottomDockWidgetArea, m_resultsDock);
    m_logDock = new LogDock(this);
    addDockWidget(Qt::BottomDockWidgetArea, m_logDock);
    m_profileDock = new ProfileDock(m_context, m_prompts.get(), this);
    addDockWidget(Qt::BottomDockWidgetArea, m_profileDock);
    tabifyDockWidget(m_resultsDock, m_profileDock);
    tabifyDockWidget(m_resultsDock, m_logDock);
    m_memoryDock = new MemoryDock(m_context, m_prompts.get(), this);
    addDockWidget(Qt::BottomDockWidgetArea, m_memoryDock);
    tabifyDockWidget(m_resultsDock, m_memoryDock);
    m_studyDock = new StudyDock(m_context, this);
    addDockWidget(Qt::BottomDockWidgetArea, m_studyDock);
    tabifyDockWidget(m_resultsDock, m_studyDock);
    connect(m_studyDock, &StudyDock::openSessionRequested, this, &MainWindow::openSession);
    m_resultsDock->raise();

    m_cursorLabel = new QLabel(this);
    m_hostStatus = new HostStatusWidget(this);
    statusBar()->addPermanentWidget(m_hostStatus);
    statusBar()->addPermanentWidget(m_cursorLabel);
    connect(m_context, &AppContext::hostStateChanged, m_hostStatus, &HostStatusWidget::setState);
    connect(m_context, &AppContext::hostsListed, this,
            [this](const QList<HostConfig> &hosts) { m_hostStatus->setHosts(hosts); });

    m_runTarget = new RunTargetBar(this);
    WindowParts parts;
    parts.window = this;
    parts.context = m_context;
    parts.prompts = m_prompts.get();
    parts.editors = m_editors;
    parts.target = m_runTarget;
    parts.results = m_resultsDock;
    parts.search = m_searchDock;
    parts.sessions = m_sessionsDock;
    parts.profile = m_profileDock;
    m_run = new RunController(parts, DataPaths::tasksDir());
    connect(m_run, &RunController::modelsRequested, this, &MainWindow::showModels);
    m_compare = new CompareController(parts, DataPaths::tasksDir());
    connect(m_memoryDock, &MemoryDock::compareRequested, m_compare, &CompareController::compareExperience);
    m_port = new PortController(parts, m_run, m_compare);

    createActions();

    connect(m_editors, &EditorTabs::fileOpened, this, [this](const QString &path) {
        RecentFiles::add(path);
        // The tab says whose kernel it is ("silu · baseline.py"); a task chosen later for F5 renames it.
        if (KernelEditor *editor = m_editors->editorAt(m_editors->indexOfFile(path)))
            if (const auto found = TaskDetector::detect(path, editor->text(), DataPaths::tasksDir()))
                editor->setProperty("taskName", found->name);
    });
    connect(m_editors, &EditorTabs::filesDropped, this, [this](const QStringList &paths) {
        for (const QString &path : paths)
            openFile(path);
    });
    connect(m_editors, &QTabWidget::currentChanged, this, &MainWindow::updateTitleAndStatus);
    connect(m_tasksDock, &TasksDock::openKernelRequested, this, &MainWindow::openFile);
    connect(m_welcome, &WelcomePage::openFileRequested, this, &MainWindow::openFile);
    connect(m_welcome, &WelcomePage::openDialogRequested, m_editors, &EditorTabs::openWithDialog);
    connect(m_welcome, &WelcomePage::modelsRequested, this, &MainWindow::showModels);
    connect(m_welcome, &WelcomePage::hostsRequested, this, &MainWindow::showHosts);
    // A new task shows in the lists at once; the Tasks dock also lists the current kernel's project tasks.
    auto followEditor = [this] {
        const KernelEditor *editor = m_editors->currentEditor();
        m_tasksDock->setNearPath(editor ? editor->filePath() : QString());
    };
    connect(m_editors, &QTabWidget::currentChanged, this, followEditor);
    connect(m_editors, &EditorTabs::fileOpened, this, followEditor); // the tab is current before it has a path
    connect(m_context, &AppContext::taskCreated, this, [this, followEditor] {
        followEditor();
        m_tasksDock->refresh();
        m_welcome->refresh();
    });
    connect(m_welcome, &WelcomePage::ownKernelRequested, this, [this] {
        m_editors->openWithDialog();
        if (m_editors->currentEditor())
            m_run->newTask();
    });
    connect(m_tasksDock, &TasksDock::problem, this,
            [this](const QString &message) { m_prompts->warn(this, tr("Task"), message); });

    m_tasksDock->setTasksDir(DataPaths::tasksDir());
    restoreLayout();
    updateTitleAndStatus();
    qCInfo(lcApp) << "workbench ready; tasks from" << m_tasksDock->tasksDir();
}

MainWindow::~MainWindow() = default;

bool MainWindow::openFile(const QString &path)
{
    const bool ok = m_editors->openFile(path);
    if (ok) {
        if (auto *editor = m_editors->currentEditor())
            connect(editor, &QsciScintilla::cursorPositionChanged, this, &MainWindow::updateTitleAndStatus,
                    Qt::UniqueConnection);
    }
    updateTitleAndStatus();
    return ok;
}

void MainWindow::restoreOpenTabs()
{
    for (const QString &path : OpenTabs::files())
        if (QFileInfo(path).isFile())
            openFile(path);
    if (const int current = m_editors->indexOfFile(OpenTabs::currentFile()); current >= 0)
        m_editors->setCurrentIndex(current);
}

void MainWindow::createActions()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("MainToolBar"));

    QAction *newAction = file->addAction(tr("&New Kernel"), this, [this] {
        KernelEditor *editor = m_editors->newKernel();
        connect(editor, &QsciScintilla::cursorPositionChanged, this, &MainWindow::updateTitleAndStatus);
    });
    newAction->setShortcut(QKeySequence::New);
    connect(m_welcome, &WelcomePage::newKernelRequested, newAction, &QAction::trigger);
    QAction *openAction = file->addAction(tr("&Open…"), this, [this] { m_editors->openWithDialog(); });
    openAction->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
    file->addAction(m_compare->compareFilesAction());
    file->addSeparator();
    QAction *saveAction =
        file->addAction(tr("&Save"), this, [this] { m_editors->save(m_editors->currentIndex()); });
    saveAction->setShortcut(QKeySequence::Save);
    QAction *saveAsAction =
        file->addAction(tr("Save &As…"), this, [this] { m_editors->saveAs(m_editors->currentIndex()); });
    saveAsAction->setShortcut(QKeySequence::SaveAs);
    QAction *closeAction =
        file->addAction(tr("&Close"), this, [this] { m_editors->closeEditor(m_editors->currentIndex()); });
    closeAction->setShortcut(QKeySequence::Close);
    file->addSeparator();
    file->addAction(m_run->exportAction());
    file->addSeparator();
    QAction *quitAction = file->addAction(tr("&Quit"), this, &QWidget::close);
    quitAction->setShortcut(QKeySequence::Quit);
    quitAction->setMenuRole(QAction::QuitRole);
    toolbar->addActions({newAction, openAction, saveAction});
    toolbar->addSeparator();
    toolbar->addActions({m_run->benchmarkAction(), m_run->optimizeAction(), m_run->stopAction()});
    addToolBar(m_runTarget);

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    // The current tab's editor, or in a view-only tab (Compare) the pane that has the focus: copy works there.
    auto target = [this]() -> QsciScintilla * {
        if (KernelEditor *editor = m_editors->currentEditor())
            return editor;
        return qobject_cast<QsciScintilla *>(QApplication::focusWidget());
    };
    auto forward = [target](void (QsciScintilla::*slot)()) {
        return [target, slot] {
            if (QsciScintilla *editor = target())
                (editor->*slot)();
        };
    };
    // Undo and Redo act where the focus is: the Memory dock's curating, else the editor.
    m_memoryDock->leaveUndoKeysToWindow();
    auto undoOrRedo = [this, forward](bool undo) {
        return [this, undo, editor = forward(undo ? &QsciScintilla::undo : &QsciScintilla::redo)] {
            if (m_memoryDock->isAncestorOf(QApplication::focusWidget()))
                undo ? m_memoryDock->undoStack()->undo() : m_memoryDock->undoStack()->redo();
            else
                editor();
        };
    };
    edit->addAction(tr("&Undo"), this, undoOrRedo(true))->setShortcut(QKeySequence::Undo);
    edit->addAction(tr("&Redo"), this, undoOrRedo(false))->setShortcuts(MemoryDock::redoKeys());
    edit->addSeparator();
    edit->addAction(tr("Cu&t"), this, forward(&QsciScintilla::cut))->setShortcut(QKeySequence::Cut);
    edit->addAction(tr("&Copy"), this, forward(&QsciScintilla::copy))->setShortcut(QKeySequence::Copy);
    edit->addAction(tr("&Paste"), this, forward(&QsciScintilla::paste))->setShortcut(QKeySequence::Paste);
    edit->addAction(tr("Select &All"), this,
                    [target] {
                        if (QsciScintilla *editor = target())
                            editor->selectAll(true);
                    })
        ->setShortcut(QKeySequence::SelectAll);
    edit->addSeparator();
    for (QAction *action : m_editorCommands->actions()) {
        if (action)
            edit->addAction(action);
        else
            edit->addSeparator();
    }
    edit->addSeparator();
    edit->addAction(tr("Complete Word"), this,
                    [this] {
                        if (KernelEditor *editor = m_editors->currentEditor())
                            editor->showCompletions(0);
                    })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Space));

    QMenu *run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_run->benchmarkAction());
    run->addAction(m_run->optimizeAction());
    run->addSeparator();
    run->addAction(m_run->stopAction());
    run->addAction(m_run->resumeAction());

    QMenu *view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget *dock : std::initializer_list<QDockWidget *>{m_tasksDock, m_sessionsDock, m_searchDock,
                                                                  m_resultsDock, m_profileDock, m_memoryDock,
                                                                  m_studyDock, m_logDock})
        view->addAction(dock->toggleViewAction());
    // The memory browser is big: a key that brings it forward and puts the cursor in its search box.
    QAction *memory = view->addAction(tr("Search the &Memory"));
    memory->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    connect(memory, &QAction::triggered, this, [this] {
        m_memoryDock->show();
        m_memoryDock->raise();
        // Docked below the editor it shares the Results dock's few lines; a list and its detail need more.
        if (!m_memoryDock->isFloating() && m_memoryDock->height() < height() * 2 / 5)
            resizeDocks({m_memoryDock}, {height() * 9 / 20}, Qt::Vertical);
        m_memoryDock->ensureOpen();
        m_memoryDock->searchEdit()->setFocus();
    });
    // A study's chart and tables need height too; the key brings them forward with the study list focused.
    QAction *study = view->addAction(tr("Show the St&udy"));
    study->setObjectName(QStringLiteral("showStudyAction"));
    study->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_U));
    connect(study, &QAction::triggered, this, [this] {
        m_studyDock->show();
        m_studyDock->raise();
        if (!m_studyDock->isFloating() && m_studyDock->height() < height() * 2 / 5)
            resizeDocks({m_studyDock}, {height() * 9 / 20}, Qt::Vertical);
        m_studyDock->refresh();
        m_studyDock->studyChoice()->setFocus();
    });
    view->addAction(toolbar->toggleViewAction());
    view->addAction(m_runTarget->toggleViewAction());
    view->addSeparator();
    QMenu *themeMenu = view->addMenu(tr("&Theme"));
    m_themeGroup = new QActionGroup(this);
    for (Theme::Kind kind : {Theme::Kind::Light, Theme::Kind::Dark}) {
        QAction *action = themeMenu->addAction(kind == Theme::Kind::Dark ? tr("&Dark") : tr("&Light"));
        action->setCheckable(true);
        action->setChecked(Theme::current() == kind);
        action->setData(Theme::name(kind));
        m_themeGroup->addAction(action);
        connect(action, &QAction::triggered, this, [this, kind] {
            Theme::setCurrent(kind);
            Theme::save(kind);
            for (KernelEditor *editor : m_editors->findChildren<KernelEditor *>())
                Theme::applyToEditor(editor, kind);
        });
    }
    view->addAction(tr("Reload &Tasks"), m_tasksDock, &TasksDock::refresh);
    view->addSeparator();
    view->addAction(m_compare->compareTabsAction());

    m_toolsMenu = menuBar()->addMenu(tr("&Tools"));
    m_toolsMenu->addAction(m_port->portAction());
    m_toolsMenu->addSeparator();
    m_toolsMenu->addAction(tr("&Hosts…"), this, &MainWindow::showHosts);
    m_toolsMenu->addAction(tr("&Models…"), this, &MainWindow::showModels);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *own = help->addAction(tr("Optimize Your &Own Kernel…"), m_run, &RunController::newTask);
    own->setObjectName(QStringLiteral("ownKernelAction"));
    own->setStatusTip(NewTaskWizard::howItWorks());
    help->addSeparator();
    help->addAction(tr("&User Guide"), this, [] { QDesktopServices::openUrl(HelpTopics::userGuideUrl()); })
        ->setObjectName(QStringLiteral("userGuideAction"));
    help->addAction(tr("&Keyboard Shortcuts"), this, [this] { HelpTopics::showShortcuts(this); })
        ->setObjectName(QStringLiteral("shortcutsAction"));
    help->addSeparator();
    QAction *about = help->addAction(tr("&About AccelOpt Workbench"), this, &MainWindow::showAbout);
    about->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList paths = RecentFiles::load();
    for (int i = 0; i < paths.size(); ++i) {
        const QString path = paths.at(i);
        QAction *action = m_recentMenu->addAction(
            QStringLiteral("&%1 %2").arg(i + 1).arg(QDir::toNativeSeparators(path)), this, [this, path] {
                if (!openFile(path) && !QFileInfo::exists(path))
                    RecentFiles::remove(path); // gone for good: stop offering it
            });
        action->setData(path);
    }
    if (paths.isEmpty())
        m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
    else {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear List"), this, [] { RecentFiles::clear(); });
    }
}

void MainWindow::restoreLayout()
{
    if (!restoreGeometry(AppSettings::windowGeometry.value())) {
        // First start: most of the screen, as the editor, the docks and a comparison all want width.
        const QSize available = screen() ? screen()->availableGeometry().size() : QSize(1280, 800);
        resize(available.boundedTo(QSize(qMax(1280, available.width() * 9 / 10), qMax(800, available.height() * 9 / 10))));
        m_firstStartSize = size(); // showEvent brings the frame inside the screen, unless resized meanwhile
    }
    if (!restoreState(AppSettings::windowState.value(), layoutVersion))
        DefaultLayout::sizeDocks(this, m_searchDock, m_tasksDock, m_resultsDock);
}

void MainWindow::saveLayout()
{
    AppSettings::windowGeometry.set(saveGeometry());
    AppSettings::windowState.set(saveState(layoutVersion));
    QSettings().sync();
}

void MainWindow::updateTitleAndStatus()
{
    KernelEditor *editor = m_editors->currentEditor();
    if (!editor) {
        setWindowTitle(tr("AccelOpt Workbench"));
        setWindowModified(false);
        m_cursorLabel->clear();
        return;
    }
    // Every editor that becomes current reports its cursor and its changes, however its tab was opened.
    connect(editor, &QsciScintilla::cursorPositionChanged, this, &MainWindow::updateTitleAndStatus,
            Qt::UniqueConnection);
    connect(editor, &QsciScintilla::modificationChanged, this, &MainWindow::updateTitleAndStatus,
            Qt::UniqueConnection);
    connect(editor, &KernelEditor::titleChanged, this, &MainWindow::updateTitleAndStatus, Qt::UniqueConnection);
    setWindowTitle(tr("%1[*] — AccelOpt Workbench").arg(editor->title()));
    setWindowModified(editor->isModified());
    int line = 0, column = 0;
    editor->getCursorPosition(&line, &column);
    m_cursorLabel->setText(tr("Ln %1, Col %2").arg(line + 1).arg(column + 1));
}

void MainWindow::showHosts()
{
    HostsDialog dialog(m_context, {}, this); // the context refreshes the run targets after a save
    connect(&dialog, &HostsDialog::hostStateChanged, m_hostStatus, &HostStatusWidget::setState);
    dialog.exec();
    m_welcome->refresh(); // it tells which hosts there are
}

void MainWindow::showModels()
{
    ModelsDialog(m_context, this).exec();
    m_welcome->refresh(); // it tells which endpoints there are
}

void MainWindow::openSession(const QString &sessionId)
{
    m_run->openSession(sessionId);
    m_sessionsDock->selectSession(sessionId);
}

bool MainWindow::compareFiles(const QString &left, const QString &right)
{
    QString error;
    if (m_compare->compareFiles(left, right, error))
        return true;
    m_prompts->warn(this, tr("Compare Files"), error);
    return false;
}

void MainWindow::showAbout()
{
    AboutDialog dialog(this);
    dialog.exec();
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (m_firstStartSize.isValid() && size() == m_firstStartSize)
        DefaultLayout::fitFrameToScreen(this);
    m_firstStartSize = QSize();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    // The question sends the user to the Sessions dock: it must be there, now and at the next start.
    if (m_context->isSearching() && m_sessionsDock->isHidden()) {
        m_sessionsDock->show();
        m_sessionsDock->raise();
    }
    if (m_context->isSearching() &&
        !m_prompts->confirm(this, tr("Quit"),
                            tr("A search is running (session %1). Quitting stops it; it can be resumed later "
                               "from the Sessions dock or with 'accelopt resume'. Quit?")
                                .arg(m_context->runningSessionId().left(8)))) {
        event->ignore();
        return;
    }
    // Save the layout before the tabs go, so a cancelled close still leaves it saved and nothing is lost.
    saveLayout();
    OpenTabs::save(m_editors);
    if (!m_editors->closeAll()) {
        event->ignore();
        return;
    }
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    for (const QUrl &url : event->mimeData()->urls())
        if (url.isLocalFile())
            openFile(url.toLocalFile());
    event->acceptProposedAction();
}
