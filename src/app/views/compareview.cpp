#include "compareview.h"

#include "common/appsettings.h"
#include "diffpane.h"
#include "lessonpanel.h"
#include "metricdeltamodel.h"

#include <QAction>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

namespace {

// For a tab's title: a file's name, or the side's name without the ids in it ("it. 2 plan 3.1 (1a2b3c4d)",
// "slow 1a2b3c4d (iteration 3)"): two hashes side by side tell a person nothing, the pane headers keep them.
QString shortName(const ComparePair::Side &side)
{
    if (!side.filePath.isEmpty())
        return QFileInfo(side.filePath).fileName();
    static const QRegularExpression id(QStringLiteral("\\s*\\(?\\b[0-9a-f]{8}\\b\\)?"));
    const QString readable = QString(side.name).remove(id).simplified();
    return readable.isEmpty() ? side.candidateId.left(8) : readable;
}
} // namespace

CompareView::CompareView(const ComparePair &pair, QWidget *parent)
    : QWidget(parent), m_pair(pair), m_diff(KernelDiff::compute(pair.left.text, pair.right.text))
{
    m_left = new DiffPane(DiffPane::Layout::Left, this);
    m_right = new DiffPane(DiffPane::Layout::Right, this);
    m_unified = new DiffPane(DiffPane::Layout::Unified, this);
    m_leftHeader = new QLabel(this);
    m_rightHeader = new QLabel(this);
    m_lesson = new LessonPanel(this);
    m_deltas = new MetricDeltaModel(this);

    auto *sideBySide = new QSplitter(Qt::Horizontal, this);
    sideBySide->addWidget(side(m_left, m_leftHeader));
    sideBySide->addWidget(side(m_right, m_rightHeader));
    sideBySide->setChildrenCollapsible(false);
    m_panes = new QStackedWidget(this);
    m_panes->addWidget(sideBySide);
    m_panes->addWidget(m_unified);

    auto *codeAndLesson = m_codeAndLesson = new QSplitter(Qt::Horizontal, this);
    codeAndLesson->addWidget(m_panes);
    codeAndLesson->addWidget(m_lesson);
    codeAndLesson->setStretchFactor(0, 1); // the code takes the room the window gains
    codeAndLesson->setStretchFactor(1, 0);

    m_lesson->setMinimumWidth(220);
    m_vertical = new QSplitter(Qt::Vertical, this);
    m_vertical->addWidget(buildDeltas());
    m_vertical->addWidget(codeAndLesson);
    m_vertical->setStretchFactor(1, 1);
    m_vertical->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(buildToolbar());
    layout->addWidget(m_vertical, 1);

    m_left->setDiff(&m_diff);
    m_right->setDiff(&m_diff);
    syncScrolling();
    refold();
    refreshDeltas();
    refreshSummary();
    setUnified(AppSettings::compareUnified.value());
    if (!m_diff.changes.isEmpty())
        goToChange(0);
}

CompareView::~CompareView()
{
    // The panes point into m_diff; they go first.
    delete m_panes;
}

void CompareView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_shown)
        return;
    m_shown = true;
    // The code gets most of the width; the lesson a column beside it (its minimum, or a fifth).
    const int width = m_codeAndLesson->width();
    const int lesson = qMax(m_lesson->minimumWidth(), width / 5);
    m_codeAndLesson->setSizes({width - lesson, lesson});
    refreshDeltas();
}

QString CompareView::title(const ComparePair &pair)
{
    const QString sides = QStringLiteral("%1 ↔ %2").arg(shortName(pair.left), shortName(pair.right));
    return pair.task.isEmpty() ? sides : QStringLiteral("%1 · %2").arg(pair.task, sides);
}

QWidget *CompareView::buildToolbar()
{
    auto *bar = new QToolBar(this);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_previous = bar->addAction(tr("◀ Previous"), this, &CompareView::previousChange);
    m_previous->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F7));
    m_previous->setToolTip(tr("Previous change (Shift+F7)"));
    m_next = bar->addAction(tr("Next ▶"), this, &CompareView::nextChange);
    m_next->setShortcut(QKeySequence(Qt::Key_F7));
    m_next->setToolTip(tr("Next change (F7)"));
    for (QAction *a : {m_previous, m_next}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        addAction(a);
    }
    bar->addSeparator();
    m_unifiedToggle = bar->addAction(tr("Unified"));
    m_unifiedToggle->setCheckable(true);
    m_unifiedToggle->setToolTip(tr("One listing, removed lines above added ones, instead of two panes"));
    connect(m_unifiedToggle, &QAction::toggled, this, [this](bool on) {
        setUnified(on);
        AppSettings::compareUnified.set(on);
    });
    m_fold = bar->addAction(tr("Fold unchanged"));
    m_fold->setCheckable(true);
    m_fold->setChecked(AppSettings::compareFold.value());
    connect(m_fold, &QAction::toggled, this, [this](bool on) {
        AppSettings::compareFold.set(on);
        refold();
    });
    auto *contextLabel = new QLabel(tr(" Context: "), bar);
    m_context = new QSpinBox(bar);
    m_context->setRange(0, 50);
    m_context->setSuffix(tr(" lines"));
    m_context->setValue(AppSettings::compareContext.value());
    m_context->setToolTip(tr("Unchanged lines kept around each change when folding"));
    connect(m_context, &QSpinBox::valueChanged, this, [this](int lines) {
        AppSettings::compareContext.set(lines);
        refold();
    });
    bar->addWidget(contextLabel);
    bar->addWidget(m_context);
    bar->addSeparator();
    m_takeRight = bar->addAction(tr("Take Right Side"), this, &CompareView::takeRightRequested);
    m_takeRight->setToolTip(tr("Open the right kernel in a new, editable tab"));
    bar->addSeparator();
    m_summary = new QLabel(bar);
    m_summary->setContentsMargins(6, 0, 6, 0);
    bar->addWidget(m_summary);
    return bar;
}

QWidget *CompareView::buildDeltas()
{
    auto *box = new QWidget(this);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    m_deltaNote = new QLabel(box);
    m_deltaNote->setWordWrap(true);
    m_measure = new QPushButton(tr("Measure Both"), box);
    m_measure->setToolTip(tr("Benchmark the kernels without a measurement on the run target's host"));
    connect(m_measure, &QPushButton::clicked, this, &CompareView::measureRequested);
    auto *noteRow = new QHBoxLayout;
    noteRow->addWidget(m_deltaNote, 1);
    noteRow->addWidget(m_measure);
    m_deltaView = new QTableView(box);
    m_deltaView->setModel(m_deltas);
    m_deltaView->verticalHeader()->hide();
    m_deltaView->verticalHeader()->setDefaultSectionSize(m_deltaView->fontMetrics().height() + 6);
    m_deltaView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_deltaView->setAlternatingRowColors(true);
    m_deltaView->setWordWrap(false);
    m_deltaView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_deltaView->horizontalHeader()->setStretchLastSection(false); // the figures close together, not spread
    layout->addLayout(noteRow);
    layout->addWidget(m_deltaView, 1);
    return box;
}

QWidget *CompareView::side(DiffPane *pane, QLabel *header)
{
    auto *box = new QWidget(this);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header->setContentsMargins(4, 2, 4, 2);
    layout->addWidget(header);
    layout->addWidget(pane, 1);
    return box;
}

void CompareView::syncScrolling()
{
    // Row i is line i in both panes, folded and annotated alike, so their scroll positions correspond.
    const auto link = [this](QScrollBar *a, QScrollBar *b) {
        connect(a, &QScrollBar::valueChanged, this, [this, b](int value) {
            if (m_syncing)
                return;
            m_syncing = true;
            b->setValue(value);
            m_syncing = false;
        });
    };
    link(m_left->verticalScrollBar(), m_right->verticalScrollBar());
    link(m_right->verticalScrollBar(), m_left->verticalScrollBar());
    link(m_left->horizontalScrollBar(), m_right->horizontalScrollBar());
    link(m_right->horizontalScrollBar(), m_left->horizontalScrollBar());
    // A click in a pane makes its row the place F7 continues from.
    for (DiffPane *pane : {m_left, m_right, m_unified})
        connect(pane, &QsciScintilla::cursorPositionChanged, this, [this, pane](int line, int) {
            if (m_syncing)
                return;
            const int row = pane->rowOfLine(line);
            int index = -1;
            for (int i = 0; i < m_diff.changes.size() && m_diff.changes.at(i) <= row; ++i)
                index = i;
            m_change = index;
        });
}

QString CompareView::sideHeader(const ComparePair::Side &side) const
{
    QString text = QStringLiteral("<b>%1</b>").arg(side.name.toHtmlEscaped());
    if (side.measured())
        text += tr(" — %1 ms").arg(*side.evaluation->latencyMeanMs, 0, 'g', 4);
    else if (side.evaluation)
        text += tr(" — %1").arg(side.evaluation->statusName());
    return text;
}

void CompareView::refreshDeltas()
{
    m_leftHeader->setText(sideHeader(m_pair.left));
    m_rightHeader->setText(sideHeader(m_pair.right));
    m_leftHeader->setToolTip(m_pair.left.filePath.isEmpty() ? m_pair.left.candidateId : m_pair.left.filePath);
    m_rightHeader->setToolTip(m_pair.right.filePath.isEmpty() ? m_pair.right.candidateId : m_pair.right.filePath);
    m_deltas->setHeaders(tr("Left"), tr("Right"));
    const bool measured = m_pair.left.evaluation && m_pair.right.evaluation;
    m_deltas->setDeltas(measured ? MetricDeltas::compute(*m_pair.left.evaluation, *m_pair.right.evaluation)
                                 : QList<MetricDelta>{});
    QStringList missing;
    for (const ComparePair::Side *s : {&m_pair.left, &m_pair.right})
        if (!s->measured())
            missing << (s->evaluation ? tr("%1 did not measure (%2)").arg(shortName(*s), s->evaluation->statusName())
                                      : tr("%1 has no measurement").arg(shortName(*s)));
    m_deltaNote->setText(missing.isEmpty() ? QString() : missing.join(QStringLiteral("; ")) + u'.');
    m_deltaNote->setVisible(!missing.isEmpty());
    m_measure->setVisible(!missing.isEmpty());
    m_deltaView->setVisible(measured);
    // Unmeasured, the box is one line of text; measured, the table gets room for its first rows.
    const int total = qMax(m_vertical->height(), 400);
    const int top = measured ? qMin(total / 3, m_deltaView->verticalHeader()->defaultSectionSize() * 9)
                             : m_deltaNote->parentWidget()->layout()->minimumSize().height() +
                                   m_measure->sizeHint().height() / 2;
    m_vertical->setSizes({top, total - top});
}

void CompareView::refreshSummary()
{
    QString text = m_diff.identical()
                       ? tr("identical%1").arg(m_diff.lineEndingsDiffer ? tr(" but for line endings") : QString())
                       : tr("%1 changed · %2 removed · %3 added lines").arg(m_diff.changed).arg(m_diff.removed).arg(m_diff.added);
    if (const std::optional<double> s = m_pair.speedup())
        text += *s >= 1 ? tr(" — right is %1× faster").arg(*s, 0, 'f', 2)
                        : tr(" — right is %1× slower").arg(1 / *s, 0, 'f', 2);
    m_summary->setText(text);
    m_next->setEnabled(!m_diff.changes.isEmpty());
    m_previous->setEnabled(!m_diff.changes.isEmpty());
}

void CompareView::setEvaluation(bool right, const Evaluation &evaluation)
{
    (right ? m_pair.right : m_pair.left).evaluation = evaluation;
    refreshDeltas();
    refreshSummary();
}

void CompareView::setTask(const QString &task, const QJsonObject &taskRef, const QString &target)
{
    m_pair.task = task;
    m_pair.taskRef = taskRef;
    if (m_pair.target.isEmpty())
        m_pair.target = target;
}

void CompareView::setMeasuring(bool measuring)
{
    if (measuring && m_measure->hasFocus())
        activePane()->setFocus(); // not onto the toolbar's spin box when the button goes disabled
    m_measure->setEnabled(!measuring);
    m_measure->setText(measuring ? tr("Measuring…") : tr("Measure Both"));
}

void CompareView::refold()
{
    for (DiffPane *pane : {m_left, m_right})
        pane->setFolded(m_fold->isChecked(), m_context->value());
    if (m_unifiedFilled)
        m_unified->setFolded(m_fold->isChecked(), m_context->value());
    if (m_change >= 0)
        goToChange(m_change);
}

void CompareView::setFolded(bool folded)
{
    m_fold->setChecked(folded);
}

void CompareView::setContext(int lines)
{
    m_context->setValue(lines);
}

void CompareView::setUnified(bool unified)
{
    if (m_unifiedToggle->isChecked() != unified) {
        m_unifiedToggle->setChecked(unified); // comes back here through toggled()
        return;
    }
    if (unified)
        unifiedPane(); // filled on first use: most comparisons are never seen unified
    m_panes->setCurrentIndex(unified ? 1 : 0);
    if (m_change >= 0)
        goToChange(m_change);
}

bool CompareView::isUnified() const
{
    return m_panes->currentIndex() == 1;
}

DiffPane *CompareView::unifiedPane()
{
    if (!m_unifiedFilled) {
        m_unifiedFilled = true;
        m_unified->setDiff(&m_diff);
        m_unified->setFolded(m_fold->isChecked(), m_context->value());
    }
    return m_unified;
}

DiffPane *CompareView::activePane() const
{
    if (isUnified())
        return m_unified;
    return m_right->hasFocus() ? m_right : m_left;
}

void CompareView::goToChange(int index)
{
    if (index < 0 || index >= m_diff.changes.size())
        return;
    m_change = index;
    const int row = m_diff.changes.at(index);
    m_syncing = true; // the caret moves below are ours, not a click
    if (isUnified()) {
        m_unified->goToRow(row);
    } else {
        m_left->goToRow(row);
        m_right->goToRow(row);
    }
    m_syncing = false;
    m_summary->setToolTip(tr("Change %1 of %2").arg(index + 1).arg(m_diff.changes.size()));
}

void CompareView::nextChange()
{
    goToChange(qMin(m_change + 1, int(m_diff.changes.size()) - 1));
}

void CompareView::previousChange()
{
    goToChange(qMax(m_change - 1, 0));
}
