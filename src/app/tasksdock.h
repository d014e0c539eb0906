#pragma once

#include <QDockWidget>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

// Lists the task folders under a tasks folder; activating a task asks for its kernel to be opened.
class TasksDock : public QDockWidget
{
    Q_OBJECT
public:
    explicit TasksDock(QWidget *parent = nullptr);

    void setTasksDir(const QString &dir);
    QString tasksDir() const { return m_tasksDir; }
    void refresh();
    QTreeWidget *tree() const { return m_tree; }

Q_SIGNALS:
    void openKernelRequested(const QString &path);
    void problem(const QString &message);

private:
    void activate(QTreeWidgetItem *item);

    QString m_tasksDir;
    QTreeWidget *m_tree;
    QLabel *m_status;
};
