#include "comparecontroller.h"

#include "appcontext.h"
#include "applogging.h"
#include "candidatetab.h"
#include "compareview.h"
#include "diffpane.h"
#include "editortabs.h"
#include "export/taskdetector.h"
#include "itemmodels/searchstate.h"
#include "kerneleditor.h"
#include "lessonpanel.h"
#include "model/kernelfile.h"
#include "model/taskcatalog.h"
#include "runtargetbar.h"
#include "searchdock.h"
#include "taskquestion.h"
#include "userprompts.h"

#include <QAction>
#include <QFileInfo>
#include <QMainWindow>

CompareController::CompareController(const WindowParts &parts, const QString &tasksDir)
    : QObject(parts.window), m_parts(parts), m_tasksDir(tasksDir)
{
    m_compareFiles = new QAction(tr("Compare &Files…"), this);
    m_compareFiles->setToolTip(tr("Open two kernel files side by side"));
    connect(m_compareFiles, &QAction::triggered, this, &CompareController::compareFilesWithDialog);
    m_compareTabs = new QAction(tr("&Compare Tabs"), this);
    m_compareTabs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    m_compareTabs->setToolTip(tr("Compare the current kernel with another open one"));
    connect(m_compareTabs, &QAction::triggered, this, &CompareController::compareTabs);

    connect(parts.search, &SearchDock::compareWithParentRequested, this, &CompareController::compareWithParent);
    connect(parts.search, &SearchDock::compareRequested, this, &CompareController::compareCandidates);

    AppContext *context = parts.context;
    connect(context, &AppContext::lessonFound, this,
            [this](quint64 job, const std::optional<ExperienceRecord> &record, const QString &error) {
                const Pending pending = m_jobs.take(job);
                if (!pending.view)
                    return;
                if (record)
                    pending.view->lesson()->showLesson(*record, true);
                else if (!error.isEmpty())
                    pending.view->lesson()->showError(error, whyNoSummary(pending.view->pair()));
                else
                    showNoLesson(pending.view);
            });
    connect(context, &AppContext::pairSummarized, this,
            [this](quint64 job, const std::optional<ExperienceRecord> &record, const QString &error) {
                const Pending pending = m_jobs.take(job);
                if (!pending.view)
                    return;
                LessonPanel *lesson = pending.view->lesson();
                if (!record) {
                    lesson->showError(error, whyNoSummary(pending.view->pair()));
                    return;
                }
                lesson->showLesson(*record, false);
                const Experience &e = record->experience;
                if (!m_parts.prompts->confirm(m_parts.window, tr("Keep This Lesson?"),
                                              tr("The summarizer says:\n\n%1\n\n%2\n\nStore it in the optimization "
                                                 "memory, where the planner will find it in later searches?")
                                                  .arg(e.title, e.lesson.left(1200)))) {
                    // Declined: the draft stays in view, and Summarize is offered again for another try.
                    lesson->showLesson(*record, false);
                    lesson->offerSummarize();
                    return;
                }
                m_jobs.insert(m_parts.context->storeLesson(*record), pending);
            });
    connect(context, &AppContext::lessonStored, this,
            [this](quint64 job, const ExperienceRecord &record, const QString &error) {
                const Pending pending = m_jobs.take(job);
                if (!pending.view)
                    return;
                if (!error.isEmpty()) {
                    m_parts.prompts->warn(m_parts.window, tr("Keep This Lesson"),
                                          tr("The lesson was not stored: %1").arg(error));
                    return;
                }
                pending.view->lesson()->showLesson(record, true);
                qCInfo(lcApp).noquote() << "lesson stored:" << record.experience.title;
            });
    // A lesson edited, pinned or deleted in the Memory dock is shown as the memory now has it.
    connect(context, &AppContext::memoryChanged, this, &CompareController::relookLessons);
    connect(context, &AppContext::experienceLoaded, this,
            [this](quint64 job, const std::optional<ExperienceRecord> &record, const QList<RetrievalRecord> &,
                   const QString &error) {
                const QPointer<CompareView> view = m_relookJobs.take(job);
                if (!view || !error.isEmpty() || view->lesson()->storedId() == 0)
                    return; // gone, unreadable now (what is shown stays), or showing something else since
                if (record)
                    view->lesson()->showLesson(*record, true);
                else
                    showNoLesson(view); // deleted
            });
    connect(context, &AppContext::experiencePairLoaded, this,
            [this](quint64 job, const ComparePair &pair) {
                if (m_pairJobs.contains(job))
                    open(pair, m_pairJobs.take(job));
            });
    connect(context, &AppContext::benchmarkFinished, this, [this](quint64 job, const Evaluation &evaluation) {
        const auto it = m_jobs.find(job);
        if (it == m_jobs.end())
            return; // another view's benchmark
        const Pending pending = *it;
        m_jobs.erase(it);
        if (!pending.view)
            return;
        pending.view->setEvaluation(pending.right, evaluation);
        bool waiting = false;
        for (const Pending &p : std::as_const(m_jobs))
            waiting = waiting || (p.view == pending.view);
        if (!waiting) {
            pending.view->setMeasuring(false);
            if (!pending.view->lesson()->showsLesson())
                showNoLesson(pending.view);
        }
    });
}

CompareView *CompareController::open(const ComparePair &pair, const std::optional<ExperienceRecord> &lesson)
{
    auto *view = new CompareView(pair, m_parts.editors);
    view->setProperty(EditorTabs::viewOnlyProperty, true);
    const int index = m_parts.editors->addTab(view, CompareView::title(pair));
    m_parts.editors->setTabToolTip(index, tr("%1\n↔\n%2").arg(pair.left.name, pair.right.name));
    m_parts.editors->setCurrentIndex(index);
    connect(view, &CompareView::measureRequested, this, [this, view] { measure(view); });
    connect(view, &CompareView::takeRightRequested, this, [this, view] { takeRight(view); });
    connect(view->lesson(), &LessonPanel::summarizeRequested, this, [this, view] { summarize(view); });
    if (lesson)
        view->lesson()->showLesson(*lesson, true);
    else
        m_jobs.insert(m_parts.context->findLesson(pair.left.text, pair.right.text), Pending{view, false});
    view->leftPane()->setFocus();
    qCInfo(lcApp).noquote() << "compare" << pair.left.name << "with" << pair.right.name << ":"
                            << view->diff().changes.size() << "changes";
    return view;
}

CompareView *CompareController::compareFiles(const QString &left, const QString &right, QString &error)
{
    ComparePair pair;
    for (auto [path, side] : {std::pair{left, &pair.left}, std::pair{right, &pair.right}}) {
        if (!QFileInfo(path).isFile()) {
            error = tr("%1 is not a file").arg(path);
            return nullptr;
        }
        const KernelFile::ReadResult read = KernelFile::read(path);
        if (!read.ok) {
            error = read.error;
            return nullptr;
        }
        side->name = QFileInfo(path).fileName();
        side->filePath = QFileInfo(path).absoluteFilePath();
        side->text = read.text;
    }
    return open(pair);
}

void CompareController::compareFilesWithDialog()
{
    QStringList paths = m_parts.prompts->openFileNames(m_parts.window, QString());
    if (paths.size() == 1) // picked one at a time, as most people do
        paths += m_parts.prompts->openFileNames(m_parts.window, QFileInfo(paths.first()).absolutePath()).mid(0, 1);
    if (paths.size() < 2)
        return;
    if (paths.size() > 2)
        m_parts.prompts->warn(m_parts.window, tr("Compare Files"),
                              tr("%1 files were chosen; comparing the first two.").arg(paths.size()));
    QString error;
    if (!compareFiles(paths.at(0), paths.at(1), error))
        m_parts.prompts->warn(m_parts.window, tr("Compare Files"), error);
}

ComparePair::Side CompareController::editorSide(const KernelEditor *editor)
{
    ComparePair::Side side;
    side.name = editor->displayName();
    side.filePath = editor->filePath();
    side.text = editor->text();
    side.candidateId = editor->property("candidateId").toString();
    return side;
}

void CompareController::compareTabs()
{
    KernelEditor *current = m_parts.editors->currentEditor();
    QList<KernelEditor *> others;
    QStringList names;
    for (int i = 0; i < m_parts.editors->count(); ++i)
        if (KernelEditor *e = m_parts.editors->editorAt(i); e && e != current) {
            others << e;
            names << QStringLiteral("%1: %2").arg(i + 1).arg(e->displayName());
        }
    if (!current || others.isEmpty()) {
        m_parts.prompts->warn(m_parts.window, tr("Compare Tabs"),
                              tr("Open two kernels first; the current one is compared with another."));
        return;
    }
    KernelEditor *other = others.first();
    if (others.size() > 1) {
        const QString chosen = m_parts.prompts->chooseItem(
            m_parts.window, tr("Compare Tabs"), tr("Compare %1 (right) with:").arg(current->displayName()), names);
        if (chosen.isEmpty())
            return;
        other = others.at(names.indexOf(chosen));
    }
    ComparePair pair;
    pair.left = editorSide(other);
    pair.right = editorSide(current);
    // A tab that knows its task (a candidate's, or one chosen for F5) passes it on.
    for (const KernelEditor *e : {other, current})
        if (pair.taskRef.isEmpty() && !e->property("taskRef").toJsonObject().isEmpty()) {
            pair.taskRef = e->property("taskRef").toJsonObject();
            pair.task = e->property("taskName").toString();
        }
    open(pair);
}

std::optional<ComparePair::Side> CompareController::candidateSide(const QString &candidateId) const
{
    const SearchState *state = m_parts.context->search();
    const SearchState::Row *row = state->find(candidateId);
    if (!row)
        return std::nullopt;
    ComparePair::Side side;
    const Candidate &c = row->candidate;
    side.name = QStringLiteral("%1 (%2)").arg(CandidateTab::title(c), c.id.left(8));
    side.text = c.source;
    side.candidateId = c.id;
    side.sessionId = c.sessionId;
    side.evaluation = row->evaluation;
    return side;
}

void CompareController::compareWithParent(const QString &candidateId)
{
    const SearchState::Row *row = m_parts.context->search()->find(candidateId);
    if (!row || row->candidate.parentId.isEmpty()) {
        m_parts.prompts->warn(m_parts.window, tr("Compare with Parent"),
                              tr("This kernel has no parent: it is where the search started."));
        return;
    }
    compareCandidates(row->candidate.parentId, candidateId);
}

void CompareController::compareCandidates(const QString &firstId, const QString &secondId)
{
    std::optional<ComparePair::Side> first = candidateSide(firstId), second = candidateSide(secondId);
    if (!first || !second) {
        m_parts.prompts->warn(m_parts.window, tr("Compare"),
                              tr("The candidate is not in the session shown in the Search dock any more."));
        return;
    }
    ComparePair pair;
    // The slower on the left when both are measured; otherwise the order given (parent, then child).
    pair.left = *first;
    pair.right = *second;
    if (pair.speedup() && *pair.speedup() < 1)
        std::swap(pair.left, pair.right);
    const SearchState::Summary &s = m_parts.context->search()->summary();
    pair.task = s.task;
    pair.taskRef = s.taskRef;
    pair.target = s.target;
    open(pair);
}

void CompareController::compareExperience(const ExperienceRecord &record)
{
    m_pairJobs.insert(m_parts.context->loadExperiencePair(record), record);
}

bool CompareController::findTask(CompareView *view, ComparePair &pair)
{
    if (!pair.taskRef.isEmpty())
        return true;
    for (const ComparePair::Side *side : {&view->pair().left, &view->pair().right})
        if (const auto found = TaskDetector::detect(side->filePath, side->text, m_tasksDir)) {
            pair.taskRef = found->ref;
            pair.task = found->name;
            return true;
        }
    // A new task is made from the side with a file (the project's tasks are found from it), else the left.
    const ComparePair::Side &from = view->pair().left.filePath.isEmpty() && !view->pair().right.filePath.isEmpty()
                                        ? view->pair().right
                                        : view->pair().left;
    const std::optional<TaskQuestion::Answer> answer = TaskQuestion::ask(
        m_parts.context, m_parts.prompts, m_parts.window, tr("Measure"),
        tr("Which task do these kernels solve? Its reference checks their results."),
        {from.filePath.isEmpty() ? from.name : QFileInfo(from.filePath).fileName(), from.filePath, from.text},
        m_tasksDir);
    if (!answer)
        return false;
    if (answer->created)
        m_parts.context->announceTaskCreated(answer->ref.value(QStringLiteral("dir")).toString());
    pair.taskRef = answer->ref;
    pair.task = answer->name;
    return true;
}

void CompareController::measure(CompareView *view)
{
    ComparePair pair = view->pair();
    if (!findTask(view, pair))
        return;
    view->setTask(pair.task, pair.taskRef, m_parts.target->target());
    view->setMeasuring(true);
    for (bool right : {false, true}) {
        const ComparePair::Side &side = right ? pair.right : pair.left;
        if (side.measured())
            continue;
        EvalRequest request;
        request.task = pair.taskRef;
        request.kernelSource = side.text;
        request.kernelName = side.filePath.isEmpty() ? side.name : QFileInfo(side.filePath).fileName();
        request.target = m_parts.target->target();
        request.size = m_parts.target->size();
        request.timeoutSeconds = request.defaultTimeoutSeconds();
        m_jobs.insert(m_parts.context->benchmark(request, m_parts.target->host()), Pending{view, right});
    }
}

QString CompareController::whyNoSummary(const ComparePair &pair)
{
    if (pair.measured())
        return {};
    return tr("Measure both kernels first: the summarizer explains a measured change.");
}

void CompareController::relookLessons()
{
    for (int i = 0; i < m_parts.editors->count(); ++i) {
        auto *view = qobject_cast<CompareView *>(m_parts.editors->widget(i));
        if (view && view->lesson()->storedId() != 0)
            m_relookJobs.insert(m_parts.context->loadExperience(view->lesson()->storedId()), view);
    }
}

void CompareController::showNoLesson(CompareView *view)
{
    view->lesson()->showNoLesson(whyNoSummary(view->pair()));
}

void CompareController::summarize(CompareView *view)
{
    ComparePair pair = view->pair();
    if (!pair.measured()) {
        showNoLesson(view);
        return;
    }
    if (pair.task.isEmpty() && !findTask(view, pair))
        return;
    if (pair.target.isEmpty())
        pair.target = m_parts.target->target();
    view->setTask(pair.task, pair.taskRef, pair.target);
    view->lesson()->showSummarizing();
    m_jobs.insert(m_parts.context->summarizePair(pair), Pending{view, false});
}

void CompareController::takeRight(CompareView *view)
{
    const ComparePair &pair = view->pair();
    KernelEditor *editor = m_parts.editors->newKernel();
    editor->setText(pair.right.text);
    if (!pair.taskRef.isEmpty()) {
        editor->setProperty("taskRef", pair.taskRef);
        editor->setProperty("taskName", pair.task);
    }
    editor->setModified(true); // new text in an untitled tab: closing it asks to save
    qCInfo(lcApp).noquote() << "took the right side of" << CompareView::title(pair) << "into" << editor->displayName();
}
