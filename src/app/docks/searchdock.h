#pragma once

#include <QDockWidget>

class AppContext;
class QAbstractItemView;
class CandidateFilter;
class CandidateTableModel;
class CandidateTreeModel;
class IterationModel;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableView;
class QTreeView;
class QTimer;

// The search, live: where it stands (iteration i of T, a progress bar with the time left, the best latency,
// speedup over the baseline and % of peak, candidates correct and failed, cost by role and tokens), the
// lineage tree with the beam highlighted and failures dimmed, the sortable and filterable candidate table and
// the iterations. Double-clicking a candidate asks for it to be opened. Stop ends the search cleanly (it can
// be resumed); Resume continues the session shown.
class SearchDock : public QDockWidget
{
    Q_OBJECT
public:
    explicit SearchDock(AppContext *context, QWidget *parent = nullptr);

    QTreeView *tree() const { return m_tree; }
    QTableView *table() const { return m_table; }
    QTableView *iterationsView() const { return m_iterations; }
    QPushButton *stopButton() const { return m_stop; }
    QPushButton *resumeButton() const { return m_resume; }
    QPushButton *exportButton() const { return m_export; }
    QLabel *statusLabel() const { return m_status; }
    QProgressBar *progressBar() const { return m_progress; }
    QLabel *figure(const QString &name) const; // "best", "speedup", "peak", "candidates", "cost", "tokens"
    QTabWidget *tabs() const { return m_tabs; }
    // The candidate selected in the visible view, or empty.
    QString selectedCandidate() const;
    QStringList selectedCandidates() const; // every selected row's, in selection order

    // The context menu of the tree and the table: Open, Compare with Parent, Compare Selected (two), Export.
    void showContextMenu(QAbstractItemView *view, const QPoint &globalPos);

Q_SIGNALS:
    void candidateActivated(const QString &candidateId);
    void resumeRequested(const QString &sessionId);
    void exportRequested(const QString &sessionId);
    void exportCandidateRequested(const QString &sessionId, const QString &candidateId);
    void compareWithParentRequested(const QString &candidateId);
    void compareRequested(const QString &leftId, const QString &rightId);

private:
    void refresh();
    void refreshButtons();

    AppContext *m_context;
    CandidateTreeModel *m_treeModel;
    CandidateTableModel *m_tableModel;
    IterationModel *m_iterationModel;
    CandidateFilter *m_filter;
    QLabel *m_status;
    QProgressBar *m_progress;
    QLabel *m_best, *m_speedup, *m_peak, *m_candidates, *m_cost, *m_tokens;
    QPushButton *m_stop, *m_resume, *m_export;
    QLineEdit *m_filterText;
    QComboBox *m_filterShow;
    QTabWidget *m_tabs;
    QTreeView *m_tree;
    QTableView *m_table;
    QTableView *m_iterations;
    QTimer *m_refresh; // the header at most ~8 times a second, however many events arrive
};
