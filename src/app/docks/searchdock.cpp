#include "searchdock.h"

#include "appcontext.h"
#include "candidatefilter.h"
#include "itemmodels/candidatetablemodel.h"
#include "itemmodels/candidatetreemodel.h"
#include "itemmodels/costtext.h"
#include "itemmodels/iterationmodel.h"
#include "itemmodels/modelroles.h"
#include "itemmodels/searchstate.h"
#include "itemmodels/sessionlistmodel.h"
#include "statusproxy.h"
#include "theme.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

namespace {
QString duration(double seconds)
{
    const qint64 s = qint64(seconds + 0.5);
    if (s < 60)
        return QObject::tr("%1 s").arg(s);
    if (s < 3600)
        return QObject::tr("%1 min %2 s").arg(s / 60).arg(s % 60);
    return QObject::tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
}

QLabel *figureLabel(QWidget *parent, const QString &name)
{
    auto *label = new QLabel(parent);
    label->setObjectName(name);
    label->setTextFormat(Qt::RichText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A figure that grows ("12 · 9 correct · 3 failed · 2 reused · 1 running") wraps: unwrapped, its width
    // became the dock's minimum and squeezed the editor.
    label->setWordWrap(true);
    return label;
}

void setUpView(QAbstractItemView *view)
{
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view->setAlternatingRowColors(true);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
}
} // namespace

SearchDock::SearchDock(AppContext *context, QWidget *parent)
    : QDockWidget(tr("Search"), parent), m_context(context)
{
    setObjectName(QStringLiteral("SearchDock"));
    SearchState *state = context->search();
    m_treeModel = new CandidateTreeModel(state, this);
    m_tableModel = new CandidateTableModel(state, this);
    m_iterationModel = new IterationModel(state, this);

    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);

    m_status = new QLabel(body);
    m_status->setObjectName(QStringLiteral("searchStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    m_progress = new QProgressBar(body);
    m_progress->setObjectName(QStringLiteral("searchProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(true);
    layout->addWidget(m_progress);

    auto *figures = new QGridLayout();
    figures->setHorizontalSpacing(16);
    const auto add = [&](int row, int column, const QString &title, const QString &name) {
        auto *caption = new QLabel(title, body);
        caption->setStyleSheet(QStringLiteral("color: palette(mid)"));
        figures->addWidget(caption, row * 2, column);
        QLabel *value = figureLabel(body, name);
        figures->addWidget(value, row * 2 + 1, column);
        return value;
    };
    m_best = add(0, 0, tr("Best latency"), QStringLiteral("best"));
    m_speedup = add(0, 1, tr("Speedup"), QStringLiteral("speedup"));
    m_peak = add(0, 2, tr("% of peak"), QStringLiteral("peak"));
    m_candidates = add(1, 0, tr("Candidates"), QStringLiteral("candidates"));
    m_cost = add(1, 1, tr("Cost"), QStringLiteral("cost"));
    m_tokens = add(1, 2, tr("Tokens"), QStringLiteral("tokens"));
    figures->setColumnStretch(3, 1);
    layout->addLayout(figures);

    auto *buttons = new QHBoxLayout();
    m_stop = new QPushButton(tr("&Stop"), body);
    m_stop->setObjectName(QStringLiteral("stopButton"));
    m_stop->setToolTip(tr("Stop the search cleanly; it can be resumed later"));
    m_resume = new QPushButton(tr("&Resume"), body);
    m_resume->setObjectName(QStringLiteral("resumeButton"));
    m_resume->setToolTip(tr("Continue this session where it stopped"));
    m_export = new QPushButton(tr("&Export Best…"), body);
    m_export->setObjectName(QStringLiteral("exportButton"));
    m_filterText = new QLineEdit(body);
    m_filterText->setObjectName(QStringLiteral("candidateFilter"));
    m_filterText->setPlaceholderText(tr("Filter candidates"));
    m_filterText->setClearButtonEnabled(true);
    m_filterShow = new QComboBox(body);
    m_filterShow->setObjectName(QStringLiteral("candidateShow"));
    m_filterShow->addItem(tr("All"), int(CandidateFilter::Show::All));
    m_filterShow->addItem(tr("Correct"), int(CandidateFilter::Show::Correct));
    m_filterShow->addItem(tr("Failed"), int(CandidateFilter::Show::Failed));
    m_filterShow->addItem(tr("In the beam"), int(CandidateFilter::Show::InBeam));
    buttons->addWidget(m_stop);
    buttons->addWidget(m_resume);
    buttons->addWidget(m_export);
    buttons->addStretch(1);
    layout->addLayout(buttons);

    m_tabs = new QTabWidget(body);
    m_tabs->setDocumentMode(true);
    m_tree = new QTreeView(m_tabs);
    m_tree->setObjectName(QStringLiteral("beamTree"));
    auto *treeColours = new StatusProxy(1, 0, this);
    treeColours->setSourceModel(m_treeModel);
    m_tree->setModel(treeColours);
    setUpView(m_tree);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setResizeContentsPrecision(0);
    for (int c = 1; c < m_treeModel->columnCount(); ++c)
        m_tree->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    // New kernels show up under their parents as they are made.
    connect(treeColours, &QAbstractItemModel::rowsInserted, m_tree,
            [this](const QModelIndex &under) { m_tree->expand(under); });
    connect(treeColours, &QAbstractItemModel::modelReset, m_tree, &QTreeView::expandAll);

    m_table = new QTableView(m_tabs);
    m_table->setObjectName(QStringLiteral("candidateTable"));
    const int kernelColumn = int(CandidateTableModel::columns().indexOf(CandidateText::Column::Kernel));
    auto *tableColours = new StatusProxy(
        int(CandidateTableModel::columns().indexOf(CandidateText::Column::Status)), kernelColumn, this);
    tableColours->setSourceModel(m_tableModel);
    m_filter = new CandidateFilter(this);
    m_filter->setSourceModel(tableColours);
    m_table->setModel(m_filter);
    setUpView(m_table);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(0, Qt::AscendingOrder);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    // The numbers take what they need; the plan's title takes the rest.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setResizeContentsPrecision(0); // the rows in sight, not every row each time
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(kernelColumn, QHeaderView::Stretch);

    m_iterations = new QTableView(m_tabs);
    m_iterations->setObjectName(QStringLiteral("iterationTable"));
    m_iterations->setModel(m_iterationModel);
    setUpView(m_iterations);
    m_iterations->verticalHeader()->hide();
    m_iterations->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);

    // The filter above the table it filters: beside the buttons it made the dock too wide for a 1280-pixel
    // screen, and on a row of its own too tall beside another dock.
    auto *candidatesPage = new QWidget(m_tabs);
    auto *pageLayout = new QVBoxLayout(candidatesPage);
    pageLayout->setContentsMargins(0, 2, 0, 0);
    pageLayout->setSpacing(2);
    auto *filterRow = new QHBoxLayout();
    filterRow->addWidget(m_filterText, 1);
    filterRow->addWidget(m_filterShow);
    pageLayout->addLayout(filterRow);
    pageLayout->addWidget(m_table, 1);
    m_table->setMinimumHeight(40); // with the filter, no taller at least than the tree: the dock's minimum stays

    m_tabs->addTab(m_tree, tr("Lineage"));
    m_tabs->addTab(candidatesPage, tr("Candidates"));
    m_tabs->addTab(m_iterations, tr("Iterations"));
    layout->addWidget(m_tabs, 1);
    setWidget(body);

    auto activate = [this](const QModelIndex &index) {
        const QString id = index.data(ModelRoles::CandidateId).toString();
        if (!id.isEmpty())
            Q_EMIT candidateActivated(id);
    };
    connect(m_tree, &QAbstractItemView::activated, this, activate);
    connect(m_table, &QAbstractItemView::activated, this, activate);
    for (QAbstractItemView *view :
         {static_cast<QAbstractItemView *>(m_tree), static_cast<QAbstractItemView *>(m_table)}) {
        view->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(view, &QWidget::customContextMenuRequested, this,
                [this, view](const QPoint &at) { showContextMenu(view, view->viewport()->mapToGlobal(at)); });
    }
    connect(m_filterText, &QLineEdit::textChanged, m_filter, &CandidateFilter::setText);
    connect(m_filterShow, &QComboBox::currentIndexChanged, this,
            [this] { m_filter->setShow(CandidateFilter::Show(m_filterShow->currentData().toInt())); });
    connect(m_stop, &QPushButton::clicked, context, &AppContext::stopSearch);
    connect(m_resume, &QPushButton::clicked, this,
            [this] { Q_EMIT resumeRequested(m_context->shownSessionId()); });
    connect(m_export, &QPushButton::clicked, this,
            [this] { Q_EMIT exportRequested(m_context->shownSessionId()); });

    m_refresh = new QTimer(this);
    m_refresh->setSingleShot(true);
    m_refresh->setInterval(120);
    connect(m_refresh, &QTimer::timeout, this, &SearchDock::refresh);
    connect(state, &SearchState::summaryChanged, this, [this] {
        if (!m_refresh->isActive())
            m_refresh->start();
    });
    connect(state, &SearchState::reset, this, &SearchDock::refresh);
    connect(context, &AppContext::searchingChanged, this, &SearchDock::refreshButtons);
    connect(context->sessions(), &QAbstractItemModel::dataChanged, this, &SearchDock::refreshButtons);
    connect(context->sessions(), &QAbstractItemModel::rowsInserted, this, &SearchDock::refreshButtons);
    // The time left counts down between events too.
    auto *clock = new QTimer(this);
    clock->setInterval(1000);
    connect(clock, &QTimer::timeout, this, [this] {
        if (m_context->search()->summary().running)
            refresh();
    });
    clock->start();
    refresh();
}

QLabel *SearchDock::figure(const QString &name) const
{
    return widget()->findChild<QLabel *>(name);
}

QStringList SearchDock::selectedCandidates() const
{
    const QAbstractItemView *view = m_tabs->currentWidget() == m_tree
                                        ? static_cast<QAbstractItemView *>(m_tree)
                                        : static_cast<QAbstractItemView *>(m_table);
    QStringList ids;
    for (const QModelIndex &index : view->selectionModel()->selectedRows())
        if (const QString id = index.data(ModelRoles::CandidateId).toString();
            !id.isEmpty() && !ids.contains(id))
            ids << id;
    return ids;
}

void SearchDock::showContextMenu(QAbstractItemView *view, const QPoint &globalPos)
{
    const QString id = view->currentIndex().data(ModelRoles::CandidateId).toString();
    if (id.isEmpty())
        return;
    const SearchState::Row *row = m_context->search()->find(id);
    const QStringList selected = selectedCandidates();
    QMenu menu(this);
    menu.addAction(tr("Open"), this, [this, id] { Q_EMIT candidateActivated(id); });
    QAction *parent = menu.addAction(tr("Compare with Parent"), this,
                                     [this, id] { Q_EMIT compareWithParentRequested(id); });
    parent->setEnabled(row && !row->candidate.parentId.isEmpty());
    QAction *pair = menu.addAction(tr("Compare Selected"), this, [this, selected] {
        Q_EMIT compareRequested(selected.at(0), selected.at(1));
    });
    pair->setEnabled(selected.size() == 2);
    pair->setToolTip(tr("Select two candidates to compare them"));
    menu.addSeparator();
    menu.addAction(tr("Export This Kernel…"), this,
                   [this, id] { Q_EMIT exportCandidateRequested(m_context->shownSessionId(), id); });
    menu.exec(globalPos);
}

QString SearchDock::selectedCandidate() const
{
    const QAbstractItemView *view = m_tabs->currentWidget() == m_tree
                                        ? static_cast<QAbstractItemView *>(m_tree)
                                        : static_cast<QAbstractItemView *>(m_table);
    return view->currentIndex().data(ModelRoles::CandidateId).toString();
}

void SearchDock::refresh()
{
    const SearchState *state = m_context->search();
    const SearchState::Summary &s = state->summary();
    if (state->sessionId().isEmpty()) {
        m_status->setText(m_context->isSearching()
                              ? tr("Starting the search…")
                              : tr("No search yet. Open a kernel and press Ctrl+Shift+O to "
                                   "optimize it, or open a session from the Sessions dock."));
        m_progress->setValue(0);
        m_progress->setFormat(QString());
        for (QLabel *l : {m_best, m_speedup, m_peak, m_candidates, m_cost, m_tokens})
            l->setText(QStringLiteral("—"));
        refreshButtons();
        return;
    }
    QString state_;
    if (s.running) {
        // After the last iteration's selection the search re-measures its best and files its lessons: that is
        // no iteration "4 of 3".
        state_ = s.iteration == 0 ? tr("<b>running</b>: evaluating the baseline")
                 : s.iteration > s.config.iterations
                     ? tr("<b>finishing</b>: %1 of %1 iterations done, checking the best").arg(s.config.iterations)
                     : tr("<b>running</b>: iteration %1 of %2").arg(s.iteration).arg(s.config.iterations);
    } else {
        const SessionSummary *summary = m_context->sessions()->session(state->sessionId());
        QString text = summary                            ? SessionListModel::statusText(*summary)
                       : s.stopReason == StopReason::None ? tr("not running")
                                                          : StopRules::describe(s.stopReason);
        // "stopped" and "stopped on request" say one thing: the longer alone, not "stopped: stopped on request".
        const QString why = StopRules::describe(s.stopReason);
        if (s.stopReason != StopReason::None && summary && why.startsWith(text))
            text = why;
        else if (s.stopReason != StopReason::None && summary && !text.contains(why))
            text += QStringLiteral(": ") + why;
        state_ = QStringLiteral("<b>%1</b>").arg(text.toHtmlEscaped());
    }
    QString line = QStringLiteral("%1 · %2 on %3 (%4, host %5, %6 size) · session %7")
                       .arg(state_, s.task.toHtmlEscaped(), s.target, s.backend, s.host.toHtmlEscaped(),
                            s.size, state->sessionId().left(8));
    if (!s.error.isEmpty())
        line += QStringLiteral("<br>") + Theme::statusHtml(Theme::Status::Bad, s.error.toHtmlEscaped());
    m_status->setText(line);

    m_progress->setValue(int(state->progress() * 1000));
    QString format = tr("%1 of %2 iterations").arg(s.iterationsDone).arg(s.config.iterations);
    if (const std::optional<double> eta = state->etaSeconds())
        format += tr(" · about %1 left").arg(duration(*eta));
    m_progress->setFormat(format);

    const std::optional<Evaluation> best = state->best();
    m_best->setText(best && best->latencyMeanMs ? tr("<b>%1 ms</b>").arg(*best->latencyMeanMs, 0, 'g', 4)
                                                : QStringLiteral("—"));
    const std::optional<double> speedup = state->speedup();
    // A kernel that failed its re-measurement is never the best: the headline says one was set aside, so a
    // faster figure in the tree or in Compare does not read as a contradiction.
    QStringList demoted;
    for (int i = 0; i < state->rowCount(); ++i)
        if (const SearchState::Row &row = state->row(i); row.demoted && row.remeasured)
            demoted << row.candidate.id.left(8);
    m_speedup->setText((speedup ? tr("<b>%1×</b> over the baseline").arg(*speedup, 0, 'f', 2)
                                : QStringLiteral("—")) +
                       (demoted.isEmpty() ? QString() : tr(" · %n demoted", nullptr, int(demoted.size()))));
    m_speedup->setToolTip(demoted.isEmpty()
                              ? QString()
                              : tr("Demoted: %1. Re-measured on fresh seeds at the small size it was wrong, so "
                                   "it is never reported or exported as the best.")
                                    .arg(demoted.join(QStringLiteral(", "))));
    m_peak->setText(best && best->percentOfPeak
                        ? tr("<b>%1 %</b> %2").arg(*best->percentOfPeak, 0, 'f', 1).arg(best->bound)
                        : QStringLiteral("—"));
    m_candidates->setText(tr("%1 · %2 · %3%4%5%6")
                              .arg(state->rowCount())
                              .arg(Theme::statusHtml(Theme::Status::Good, tr("%1 correct").arg(s.usable)),
                                   Theme::statusHtml(Theme::Status::Bad, tr("%1 failed").arg(s.failed)))
                              .arg(s.unchecked ? tr(" · %1 not checked").arg(s.unchecked) : QString())
                              .arg(s.reused ? tr(" · %1 reused").arg(s.reused) : QString())
                              .arg(s.evaluating ? tr(" · %1 running").arg(s.evaluating) : QString()));
    QStringList roles;
    int calls = 0;
    int unpriced = 0;
    QStringList roleNames = s.callsByRole.keys() + s.costUsdByRole.keys();
    roleNames.removeDuplicates();
    roleNames.sort();
    for (const QString &role : std::as_const(roleNames)) {
        const int n = s.callsByRole.value(role);
        const int u = s.unpricedCallsByRole.value(role);
        calls += n;
        unpriced += u;
        roles << QStringLiteral("%1 %2").arg(role, CostText::money(s.costUsdByRole.value(role), n, u));
    }
    // The roles' shares in the tooltip: on the line they widened the dock until the editor was squeezed.
    m_cost->setText(QStringLiteral("<b>%1</b>").arg(CostText::money(s.costUsd, calls, unpriced).toHtmlEscaped()));
    m_cost->setToolTip(roles.isEmpty() ? tr("No model calls yet")
                                       : roles.join(u'\n') +
                                             (unpriced ? tr("\nUnknown: the model has no price in the price "
                                                            "table, or the reply said no token usage")
                                                       : QString()));
    m_tokens->setText(QLocale().toString(s.tokens) +
                      (s.llmCallsInFlight ? tr(" · %1 calls out").arg(s.llmCallsInFlight) : QString()));
    refreshButtons();
}

void SearchDock::refreshButtons()
{
    const QString shown = m_context->shownSessionId();
    const bool runningHere = m_context->isSearching() && shown == m_context->runningSessionId();
    m_stop->setEnabled(runningHere);
    const SessionSummary *summary = m_context->sessions()->session(shown);
    const bool heldElsewhere = summary && summary->live && !runningHere;
    m_resume->setEnabled(!shown.isEmpty() && !m_context->isSearching() && !heldElsewhere);
    m_export->setEnabled(!shown.isEmpty() && m_context->search()->best().has_value());
}
