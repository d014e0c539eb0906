#pragma once

#include "windowparts.h"

#include "diff/comparepair.h"
#include "memory/experiencerecord.h"
#include "model/evaluation.h"

#include <QHash>
#include <QObject>
#include <QPointer>

#include <optional>

class CompareView;
class KernelEditor;
class QAction;

// Where comparisons come from and what they ask for: File > Compare Files…, View > Compare Tabs, the Search
// dock's "Compare with Parent" and "Compare Selected", and `accelopt-workbench --diff A B`. Each opens a
// CompareView tab; this then finds the pair's lesson in the memory, measures unmeasured kernels on the run
// target when asked, has the summarizer write a lesson and stores it once the user confirms, and opens the
// right kernel in an editable tab on "Take Right Side".
class CompareController : public QObject
{
    Q_OBJECT
public:
    CompareController(const WindowParts &parts, const QString &tasksDir);

    QAction *compareFilesAction() const { return m_compareFiles; }
    QAction *compareTabsAction() const { return m_compareTabs; }

    // `lesson`: the pair's, when the caller knows it (a memory item); otherwise the memory is asked.
    CompareView *open(const ComparePair &pair, const std::optional<ExperienceRecord> &lesson = std::nullopt);
    // false, with the reason in `error`, when a file cannot be read.
    CompareView *compareFiles(const QString &left, const QString &right, QString &error);
    void compareFilesWithDialog();
    void compareTabs();
    void compareWithParent(const QString &candidateId);
    void compareCandidates(const QString &firstId, const QString &secondId);
    // A memory item's slow and fast kernels (the Memory browser's Compare); opens when the engine has them.
    void compareExperience(const ExperienceRecord &record);

private:
    std::optional<ComparePair::Side> candidateSide(const QString &candidateId) const;
    static ComparePair::Side editorSide(const KernelEditor *editor);
    void measure(CompareView *view);
    bool findTask(CompareView *view, ComparePair &pair);
    void summarize(CompareView *view);
    void takeRight(CompareView *view);
    void showNoLesson(CompareView *view);
    static QString whyNoSummary(const ComparePair &pair);

    WindowParts m_parts;
    QString m_tasksDir;
    QAction *m_compareFiles, *m_compareTabs;
    struct Pending
    {
        QPointer<CompareView> view;
        bool right = false;
    };
    QHash<quint64, Pending> m_jobs; // engine jobs (lessons, summaries, benchmarks) -> the view waiting
    QHash<quint64, ExperienceRecord> m_pairJobs;        // memory items being loaded
    QHash<quint64, QPointer<CompareView>> m_relookJobs; // shown lessons read again after a memory change
    void relookLessons();
};
