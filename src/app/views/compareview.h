#pragma once

#include "diff/comparepair.h"
#include "diff/kerneldiff.h"

#include <QWidget>

class DiffPane;
class LessonPanel;
class MetricDeltaModel;
class QAction;
class QLabel;
class QPushButton;
class QSpinBox;
class QSplitter;
class QStackedWidget;
class QTableView;

// Two kernels side by side (meld's and kdiff3's layout) with what neither shows: the measured deltas above
// the code and the lesson beside it. The left kernel is the slower or older one. The panes scroll together
// (filler lines keep them aligned across insertions and deletions); F7 and Shift+F7 walk the changes;
// unchanged runs fold down to a context the user sets; a toggle shows one unified listing instead.
class CompareView : public QWidget
{
    Q_OBJECT
public:
    explicit CompareView(const ComparePair &pair, QWidget *parent = nullptr);
    ~CompareView() override;

    const ComparePair &pair() const { return m_pair; }
    const KernelDiff::Result &diff() const { return m_diff; }
    // "slow1.py ↔ fast1.py": a tab's title
    static QString title(const ComparePair &pair);

    void setEvaluation(bool right, const Evaluation &evaluation);
    void setTask(const QString &task, const QJsonObject &taskRef, const QString &target);
    void setMeasuring(bool measuring);

    void nextChange();
    void previousChange();
    int currentChange() const { return m_change; } // index into diff().changes; -1 before the first
    void setUnified(bool unified);
    bool isUnified() const;
    void setFolded(bool folded);
    void setContext(int lines);

    DiffPane *leftPane() const { return m_left; }
    DiffPane *rightPane() const { return m_right; }
    DiffPane *unifiedPane(); // filled on first use
    DiffPane *activePane() const;
    LessonPanel *lesson() const { return m_lesson; }
    MetricDeltaModel *deltas() const { return m_deltas; }
    QTableView *deltaView() const { return m_deltaView; }
    QLabel *summary() const { return m_summary; }
    QPushButton *measureButton() const { return m_measure; }
    QAction *nextAction() const { return m_next; }
    QAction *previousAction() const { return m_previous; }
    QAction *unifiedAction() const { return m_unifiedToggle; }
    QAction *foldAction() const { return m_fold; }
    QAction *takeRightAction() const { return m_takeRight; }
    QSpinBox *contextBox() const { return m_context; }

Q_SIGNALS:
    void measureRequested();
    void takeRightRequested();

protected:
    void showEvent(QShowEvent *event) override;

private:
    QWidget *buildToolbar();
    QWidget *buildDeltas();
    QWidget *side(DiffPane *pane, QLabel *header);
    void syncScrolling();
    void refreshDeltas();
    void refreshSummary();
    void refold();
    void goToChange(int index);
    QString sideHeader(const ComparePair::Side &side) const;

    ComparePair m_pair;
    KernelDiff::Result m_diff;
    int m_change = -1;
    bool m_syncing = false;
    DiffPane *m_left, *m_right, *m_unified;
    QLabel *m_leftHeader, *m_rightHeader;
    QStackedWidget *m_panes;
    QSplitter *m_vertical;
    QSplitter *m_codeAndLesson;
    bool m_shown = false;
    bool m_unifiedFilled = false;
    LessonPanel *m_lesson;
    MetricDeltaModel *m_deltas;
    QTableView *m_deltaView;
    QLabel *m_deltaNote;
    QLabel *m_summary;
    QPushButton *m_measure;
    QSpinBox *m_context;
    QAction *m_next, *m_previous, *m_unifiedToggle, *m_fold, *m_takeRight;
};
