#pragma once

#include <QDockWidget>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

// Lists every task the program sees (TaskCatalog::scanAll): the current kernel's project tasks, the user's and
// the shipped NKIBench ones, each labelled with where it lives; activating a task asks for its kernel to be
// opened.
class TasksDock : public QDockWidget
{
    Q_OBJECT
public:
    explicit TasksDock(QWidget *parent = nullptr);

    enum Column
    {
        NameColumn,
        DescriptionColumn,
        OriginColumn
    };

    void setTasksDir(const QString &dir); // the shipped tasks
    QString tasksDir() const { return m_tasksDir; }
    // The current editor's file, whose project's tasks are listed too; empty: none.
    void setNearPath(const QString &path);
    QString nearPath() const { return m_nearPath; }
    void refresh();
    QTreeWidget *tree() const { return m_tree; }

Q_SIGNALS:
    void openKernelRequested(const QString &path);
    void problem(const QString &message);

private:
    void activate(QTreeWidgetItem *item);

    QString m_tasksDir;
    QString m_nearPath;
    QTreeWidget *m_tree;
    QLabel *m_status;
};
