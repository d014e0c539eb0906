#include "welcomepage.h"

#include "appcontext.h"
#include "common/recentfiles.h"
#include "hosts/hostregistry.h"
#include "llm/llmconfig.h"
#include "model/taskcatalog.h"
#include "model/tasklocations.h"
#include "newtaskwizard.h"
#include "taskquestion.h"

#include <QCommandLinkButton>
#include <QDir>
#include <QFileInfo>
#include <QGridLayout>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QScrollArea>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {
constexpr int pathRole = Qt::UserRole;

QLabel *sectionTitle(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    QFont font = label->font();
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() * 1.15);
    label->setFont(font);
    return label;
}

// A line under a button that says what is there now: quieter than the button, wrapped, selectable so a path
// in it can be copied.
QLabel *statusLine(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setContentsMargins(12, 0, 0, 6);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

// A two-column list that shows all its rows at once (the page scrolls, not the list) and elides what is too
// wide instead of scrolling sideways.
QTreeWidget *listTree(const QString &name, const QStringList &headers, QWidget *parent)
{
    auto *tree = new QTreeWidget(parent);
    tree->setObjectName(name);
    tree->setHeaderLabels(headers);
    tree->setRootIsDecorated(false);
    tree->setUniformRowHeights(true);
    tree->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    tree->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    tree->header()->setStretchLastSection(true);
    tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    return tree;
}

void fitHeightToRows(QTreeWidget *tree)
{
    const int rows = qMax(1, tree->topLevelItemCount());
    const int row = tree->topLevelItemCount() > 0 ? tree->sizeHintForRow(0) : tree->fontMetrics().height();
    tree->setFixedHeight(tree->header()->sizeHint().height() + rows * row + 2 * tree->frameWidth());
}

QCommandLinkButton *action(const QString &title, const QString &description, QWidget *parent)
{
    auto *button = new QCommandLinkButton(title, description, parent);
    // Its height depends on its width (the description wraps): keep that, and let the column's stretch,
    // not the buttons, take the spare height.
    QSizePolicy policy = button->sizePolicy();
    policy.setVerticalPolicy(QSizePolicy::Minimum);
    policy.setHeightForWidth(true);
    button->setSizePolicy(policy);
    return button;
}
} // namespace

WelcomePage::WelcomePage(AppContext *context, QWidget *parent) : QWidget(parent), m_context(context)
{
    setObjectName(QStringLiteral("WelcomePage"));
    if (m_context) {
        connect(m_context, &AppContext::llmConfigLoaded, this,
                [this](quint64 job, const std::optional<LlmConfig> &llm, const QString &error, const QStringList &) {
                    if (job == m_llmJob)
                        showModelsSetup(llm, error);
                });
        connect(m_context, &AppContext::hostsLoaded, this,
                [this](quint64 job, const QList<HostConfig> &hosts, const QString &error) {
                    if (job == m_hostsJob)
                        showHostsSetup(hosts, error);
                });
    }
    setAutoFillBackground(true);

    auto *icon = new QLabel(this);
    icon->setPixmap(QIcon(QStringLiteral(":/icons/accelopt.svg")).pixmap(56, 56));
    auto *title = new QLabel(tr("AccelOpt Workbench"), this);
    QFont titleFont = title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.8);
    titleFont.setBold(true);
    title->setFont(titleFont);
    auto *subtitle = new QLabel(tr("Benchmark an NKI kernel on this machine's simulator or a Trainium host, "
                                   "then let the agents search for a faster one."),
                                this);
    subtitle->setWordWrap(true);
    auto *titles = new QVBoxLayout();
    titles->setSpacing(2);
    titles->addWidget(title);
    titles->addWidget(subtitle);
    auto *header = new QHBoxLayout();
    header->setSpacing(14);
    header->addWidget(icon, 0, Qt::AlignTop);
    header->addLayout(titles, 1);

    m_open = action(tr("Open a Kernel…"), tr("An NKI kernel file (.py) from disk."), this);
    m_new = action(tr("New Kernel"), tr("An empty editor to write one in."), this);
    m_own = action(tr("Optimize Your Own Kernel…"),
                   tr("Open your kernel, then make a task for it: the shapes of its inputs and a reference "
                      "that computes the right answer. Benchmark and Optimize then check it against that."),
                   this);
    m_own->setToolTip(NewTaskWizard::howItWorks());
    m_models = action(
        tr("Set Up a Model Endpoint…"),
        tr("The OpenAI-compatible server the agents ask. Optimize needs one; Benchmark does not."), this);
    m_hosts = action(
        tr("Add a Host…"),
        tr("A Trainium machine over SSH, or a SLURM cluster. Until then kernels run here, on nkisim."), this);
    m_modelsStatus = statusLine(this);
    m_hostsStatus = statusLine(this);
    connect(m_open, &QAbstractButton::clicked, this, &WelcomePage::openDialogRequested);
    connect(m_new, &QAbstractButton::clicked, this, &WelcomePage::newKernelRequested);
    connect(m_own, &QAbstractButton::clicked, this, &WelcomePage::ownKernelRequested);
    connect(m_models, &QAbstractButton::clicked, this, &WelcomePage::modelsRequested);
    connect(m_hosts, &QAbstractButton::clicked, this, &WelcomePage::hostsRequested);

    m_startTitle = sectionTitle(tr("Start"), this);
    m_setUpTitle = sectionTitle(tr("Set Up"), this);
    m_actions = new QGridLayout();
    m_actions->setHorizontalSpacing(24);
    m_actions->setVerticalSpacing(4);
    arrangeActions(false);

    m_tasks = listTree(QStringLiteral("WelcomeTasks"), {tr("Task"), tr("Description"), tr("From")}, this);
    m_tasks->header()->setStretchLastSection(false);
    m_tasks->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_tasks->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    connect(m_tasks, &QTreeWidget::itemClicked, this, &WelcomePage::openTask);
    connect(m_tasks, &QTreeWidget::itemActivated, this, &WelcomePage::openTask);
    m_tasksStatus = statusLine(this);
    m_tasksStatus->setContentsMargins(0, 0, 0, 4);

    m_recentTitle = sectionTitle(tr("Recent Files"), this);
    m_recent = listTree(QStringLiteral("WelcomeRecent"), {tr("File"), tr("Folder")}, this);
    m_recent->setTextElideMode(Qt::ElideMiddle); // a long folder keeps its start and its end
    connect(m_recent, &QTreeWidget::itemClicked, this, &WelcomePage::openRecent);
    connect(m_recent, &QTreeWidget::itemActivated, this, &WelcomePage::openRecent);

    // The content keeps a readable width on a wide screen and stays centred, as an IDE's start page does;
    // the page scrolls when the window is too short for it.
    auto *content = new QWidget(this);
    content->setMaximumWidth(960);
    auto *column = new QVBoxLayout(content);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(4);
    column->addLayout(header);
    column->addSpacing(20);
    column->addLayout(m_actions);
    column->addSpacing(16);
    column->addWidget(sectionTitle(tr("Open a Task"), this));
    column->addWidget(m_tasksStatus);
    column->addWidget(m_tasks);
    column->addSpacing(16);
    column->addWidget(m_recentTitle);
    column->addWidget(m_recent);
    column->addStretch(1);

    auto *centred = new QWidget(this);
    auto *row = new QHBoxLayout(centred);
    row->setContentsMargins(32, 28, 32, 28);
    row->addWidget(content, 1);
    auto *scroll = new QScrollArea(this);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(centred);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
}

void WelcomePage::arrangeActions(bool twoColumns)
{
    m_twoColumns = twoColumns;
    const QList<QWidget *> widgets{m_startTitle, m_open,         m_new,   m_own,        m_setUpTitle,
                                   m_models,     m_modelsStatus, m_hosts, m_hostsStatus};
    for (QWidget *widget : widgets)
        m_actions->removeWidget(widget);
    if (twoColumns) {
        m_actions->addWidget(m_startTitle, 0, 0, 1, 2);
        m_actions->addWidget(m_open, 1, 0, Qt::AlignTop);
        m_actions->addWidget(m_new, 1, 1, Qt::AlignTop);
        m_actions->addWidget(m_own, 2, 0, 1, 2, Qt::AlignTop);
        m_actions->addWidget(m_setUpTitle, 4, 0, 1, 2);
        m_actions->addWidget(m_models, 5, 0, Qt::AlignTop);
        m_actions->addWidget(m_hosts, 5, 1, Qt::AlignTop);
        m_actions->addWidget(m_modelsStatus, 6, 0, Qt::AlignTop);
        m_actions->addWidget(m_hostsStatus, 6, 1, Qt::AlignTop);
    } else {
        int row = 0;
        for (QWidget *widget : widgets) {
            if (widget == m_setUpTitle)
                ++row; // the gap between the sections
            m_actions->addWidget(widget, row++, 0);
        }
    }
    for (int row = 0; row < m_actions->rowCount(); ++row)
        m_actions->setRowMinimumHeight(row, 0);
    m_actions->setRowMinimumHeight(twoColumns ? 3 : 4, 12);
    m_actions->setColumnStretch(0, 1);
    m_actions->setColumnStretch(1, twoColumns ? 1 : 0);
}

void WelcomePage::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // Beside the docks the editor area can be narrow: side by side, two buttons would cut their text.
    const bool wide = width() >= 720;
    if (wide != m_twoColumns)
        arrangeActions(wide);
}

void WelcomePage::setTasksDir(const QString &dir)
{
    m_tasksDir = dir;
    refreshTasks();
}

void WelcomePage::refresh()
{
    refreshTasks();
    refreshRecent();
    refreshSetup();
}

void WelcomePage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
}

void WelcomePage::refreshTasks()
{
    m_tasks->clear();
    // No kernel is open while the page shows: the projects are those of the recent files, then the user's
    // tasks and NKIBench's.
    QList<TaskCatalog::Entry> entries;
    QStringList projects;
    for (const QString &path : RecentFiles::load())
        if (const QString dir = TaskLocations::projectTasksDir(path);
            !dir.isEmpty() && !projects.contains(dir)) {
            projects << dir;
            entries += TaskCatalog::scan(dir, QStringLiteral("project"));
        }
    entries += TaskCatalog::scanAll(m_tasksDir, QString());
    for (const TaskCatalog::Entry &entry : entries) {
        auto *item = new QTreeWidgetItem(
            m_tasks, {entry.name, entry.problem.isEmpty() ? entry.description : entry.problem,
                      TaskQuestion::originName(entry.origin)});
        item->setToolTip(2, QDir::toNativeSeparators(entry.originDir));
        item->setData(0, pathRole, entry.kernelPath);
        if (entry.kernelPath.isEmpty()) {
            item->setDisabled(true); // listed so its problem shows, but there is nothing to open
            item->setToolTip(1, entry.problem);
        } else {
            item->setToolTip(0, tr("Open %1").arg(QDir::toNativeSeparators(entry.kernelPath)));
            item->setToolTip(1, entry.description); // the column shows as much of it as fits
        }
    }
    fitHeightToRows(m_tasks);
    m_tasksStatus->setText(entries.isEmpty()
                               ? tr("No tasks in %1.").arg(QDir::toNativeSeparators(m_tasksDir))
                               : tr("Click a task to open its baseline kernel, then press Benchmark (F5)."));
}

void WelcomePage::refreshRecent()
{
    m_recent->clear();
    const QStringList paths = RecentFiles::load();
    for (const QString &path : paths) {
        const QFileInfo info(path);
        auto *item =
            new QTreeWidgetItem(m_recent, {info.fileName(), QDir::toNativeSeparators(info.absolutePath())});
        item->setData(0, pathRole, path);
        item->setToolTip(0, QDir::toNativeSeparators(path));
        item->setToolTip(1, QDir::toNativeSeparators(path));
    }
    fitHeightToRows(m_recent);
    m_recentTitle->setVisible(!paths.isEmpty());
    m_recent->setVisible(!paths.isEmpty());
}

void WelcomePage::refreshSetup()
{
    if (!m_context)
        return;
    // The engine reads its own files; the answers fill the two lines.
    m_llmJob = m_context->loadLlmConfig();
    m_hostsJob = m_context->loadHosts();
}

void WelcomePage::showModelsSetup(const std::optional<LlmConfig> &llm, const QString &error)
{
    if (!llm) {
        m_modelsStatus->setText(error);
    } else if (llm->endpoints.isEmpty()) {
        m_modelsStatus->setText(tr("No model endpoint yet."));
    } else {
        QStringList names;
        for (const Endpoint &endpoint : llm->endpoints)
            names << endpoint.name;
        m_modelsStatus->setText(tr("Set up: %1.").arg(names.join(QStringLiteral(", "))));
    }
}

void WelcomePage::showHostsSetup(const QList<HostConfig> &hosts, const QString &error)
{
    if (!error.isEmpty()) {
        m_hostsStatus->setText(error);
        return;
    }
    QStringList names;
    const QString local = HostRegistry::builtinLocal().name;
    for (const HostConfig &host : hosts)
        names << (host.name == local ? tr("%1 (this machine, nkisim)").arg(host.name) : host.name);
    m_hostsStatus->setText(tr("Hosts: %1.").arg(names.join(QStringLiteral(", "))));
}

void WelcomePage::openTask(QTreeWidgetItem *item)
{
    if (item && !item->isDisabled())
        Q_EMIT openFileRequested(item->data(0, pathRole).toString());
}

void WelcomePage::openRecent(QTreeWidgetItem *item)
{
    if (item)
        Q_EMIT openFileRequested(item->data(0, pathRole).toString());
}
