#pragma once

#include <QDockWidget>
#include <QHash>
#include <QPointer>

class AppContext;
class BenchmarkListModel;
class KernelEditor;
class QLabel;
class QTableView;
struct Evaluation;
struct EvalRequest;

// Benchmark (F5) and what it measured: every run of an editor's kernel on a host, newest first, with status,
// correctness, latency mean/p50/min/max, % of peak and bound. A failure that names a kernel line marks that
// line in its editor, and the line in the details is a link that jumps there.
class ResultsDock : public QDockWidget
{
    Q_OBJECT
public:
    ResultsDock(AppContext *context, QWidget *parent = nullptr);

    // Evaluates `editor`'s text as given; the result lands here and, on an error with a line, in the editor.
    quint64 benchmark(KernelEditor *editor, const EvalRequest &request, const QString &taskName,
                      const QString &host);
    BenchmarkListModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QLabel *details() const { return m_details; }
    KernelEditor *editorOf(quint64 job) const { return m_editors.value(job); } // null once it is closed
    // The 1-based kernel line an error message names ("line 12: ..."), or 0.
    static int errorLine(const QString &error);

Q_SIGNALS:
    void finished(quint64 job, const Evaluation &evaluation);
    void lineActivated(KernelEditor *editor, int line);

private:
    void onFinished(quint64 job, const Evaluation &evaluation);
    void showDetails(quint64 job);

    AppContext *m_context;
    BenchmarkListModel *m_model;
    QTableView *m_view;
    QLabel *m_details;
    QHash<quint64, QPointer<KernelEditor>> m_editors;
    quint64 m_shown = 0;
};
