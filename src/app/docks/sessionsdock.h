#pragma once

#include <QDockWidget>

class AppContext;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class UserPrompts;

// Every session of the workspace, past and running, whichever program started it (the CLI's show up within
// seconds): task, start, status or why it stopped, iterations, best latency, speedup and cost. Open shows one
// in the Search dock; Resume continues it; Export writes its best kernel; Delete removes it, after asking,
// and never while it runs.
class SessionsDock : public QDockWidget
{
    Q_OBJECT
public:
    SessionsDock(AppContext *context, UserPrompts *prompts, QWidget *parent = nullptr);

    QTableView *view() const { return m_view; }
    QPushButton *openButton() const { return m_open; }
    QPushButton *resumeButton() const { return m_resume; }
    QPushButton *exportButton() const { return m_export; }
    QPushButton *deleteButton() const { return m_delete; }
    QString selectedSession() const;
    void selectSession(const QString &sessionId);

Q_SIGNALS:
    void openRequested(const QString &sessionId);
    void resumeRequested(const QString &sessionId);
    void exportRequested(const QString &sessionId);

private:
    void refreshButtons();
    void deleteSelected();

    AppContext *m_context;
    UserPrompts *m_prompts;
    QSortFilterProxyModel *m_sorted;
    QTableView *m_view;
    QPushButton *m_open, *m_resume, *m_export, *m_delete;
};
