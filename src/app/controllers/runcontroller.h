#pragma once

#include "windowparts.h"

#include "hosts/hostconfig.h"

#include <QObject>
#include <QString>

class AppContext;
class KernelEditor;
class QAction;
class SearchNotifier;

// The window's Run actions and what they need to find out first: Benchmark (F5) finds the active editor's
// task (from its file, or asks once), Optimize (Ctrl+Shift+O) opens the Optimize dialog, Resume asks for more
// iterations when a session has finished, Export Best Kernel (Ctrl+Shift+E) opens the Export dialog, and the
// end of a search is announced. The work itself goes to the AppContext.
class RunController : public QObject
{
    Q_OBJECT
public:
    // The task an editor's kernel solves: remembered, detected from its file or text, else asked for (false
    // when the person declines).
    bool taskOf(KernelEditor *editor, QJsonObject &ref, QString &name);
    RunController(const WindowParts &parts, const QString &tasksDir);

    QAction *benchmarkAction() const { return m_benchmark; }
    QAction *optimizeAction() const { return m_optimize; }
    QAction *stopAction() const { return m_stop; }
    QAction *resumeAction() const { return m_resume; }
    QAction *exportAction() const { return m_export; }
    SearchNotifier *notifier() const { return m_notifier; }
    QList<HostConfig> hosts() const { return m_hosts; }

    void benchmark();
    void optimize();
    // Help > Optimize Your Own Kernel…: the New Task wizard for the current editor's kernel, or, with none
    // open, what to do first.
    void newTask();
    void resume(const QString &sessionId);
    void exportBest(const QString &sessionId, const QString &candidateId = {});
    void openCandidate(const QString &candidateId);
    void openSession(const QString &sessionId);
    // The editor holding `line`'s kernel to the front, with the caret on the line.
    void goToLine(KernelEditor *editor, int line);
    // Instructions of the timeline a Benchmark asks for: enough for the Timeline view of any NKIBench task.
    static constexpr int benchmarkTimelineCap = 200000;

Q_SIGNALS:
    void modelsRequested(); // Tools > Models, from the Optimize dialog's warning

private:
    // The task of the editor's kernel: found from its file, remembered for the tab, or asked for.
    void refreshActions();

    WindowParts m_parts;
    QString m_tasksDir;
    QList<HostConfig> m_hosts;
    QAction *m_benchmark, *m_optimize, *m_stop, *m_resume, *m_export;
    SearchNotifier *m_notifier;
};
