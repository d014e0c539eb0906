#include "tasksdock.h"

#include "model/taskcatalog.h"
#include "taskquestion.h"

#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {
constexpr int kernelPathRole = Qt::UserRole;
constexpr int problemRole = Qt::UserRole + 1;
} // namespace

TasksDock::TasksDock(QWidget *parent) : QDockWidget(tr("Tasks"), parent)
{
    setObjectName(QStringLiteral("TasksDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(2, 2, 2, 2);

    auto *header = new QHBoxLayout();
    m_status = new QLabel(body);
    m_status->setWordWrap(true);
    auto *reload = new QToolButton(body);
    reload->setText(tr("Reload"));
    reload->setToolTip(tr("Scan the tasks folders again"));
    connect(reload, &QToolButton::clicked, this, &TasksDock::refresh);
    header->addWidget(m_status, 1);
    header->addWidget(reload);
    layout->addLayout(header);

    m_tree = new QTreeWidget(body);
    m_tree->setHeaderLabels({tr("Task"), tr("Description"), tr("From")});
    m_tree->setRootIsDecorated(false);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(NameColumn, QHeaderView::ResizeToContents); // names whole
    m_tree->header()->setSectionResizeMode(DescriptionColumn, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(OriginColumn, QHeaderView::ResizeToContents);
    // Where a task lives is short and matters; its description is long and may be elided: in a narrow dock
    // the origin is shown second (the columns' meaning, text(1) the description, stays).
    m_tree->header()->moveSection(OriginColumn, DescriptionColumn);
    connect(m_tree, &QTreeWidget::itemActivated, this, &TasksDock::activate);
    layout->addWidget(m_tree, 1);
    setWidget(body);
}

void TasksDock::setTasksDir(const QString &dir)
{
    m_tasksDir = dir;
    refresh();
}

void TasksDock::setNearPath(const QString &path)
{
    if (path == m_nearPath)
        return;
    m_nearPath = path;
    refresh();
}

void TasksDock::refresh()
{
    m_tree->clear();
    const QList<TaskCatalog::Entry> entries = TaskCatalog::scanAll(m_tasksDir, m_nearPath);
    for (const TaskCatalog::Entry &entry : entries) {
        auto *item = new QTreeWidgetItem(m_tree, {entry.name,
                                                  entry.problem.isEmpty() ? entry.description : entry.problem,
                                                  TaskQuestion::originName(entry.origin)});
        item->setData(0, kernelPathRole, entry.kernelPath);
        item->setData(0, problemRole, entry.problem);
        item->setToolTip(0, QDir::toNativeSeparators(entry.folder));
        item->setToolTip(OriginColumn, QDir::toNativeSeparators(entry.originDir));
        if (!entry.problem.isEmpty()) {
            item->setForeground(1, QBrush(Qt::darkRed));
            item->setToolTip(1, entry.problem);
        }
    }
    m_status->setText(entries.isEmpty() ? tr("No tasks in %1").arg(QDir::toNativeSeparators(m_tasksDir))
                                        : tr("%n task(s)", nullptr, int(entries.size())));
    m_status->setToolTip(m_tasksDir);
}

void TasksDock::activate(QTreeWidgetItem *item)
{
    if (!item)
        return;
    const QString kernel = item->data(0, kernelPathRole).toString();
    if (kernel.isEmpty()) {
        Q_EMIT problem(
            tr("Task %1 cannot be opened: %2").arg(item->text(0), item->data(0, problemRole).toString()));
        return;
    }
    Q_EMIT openKernelRequested(kernel);
}
