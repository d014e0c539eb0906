#include "studyview.h"
#include "tablecells.h"

#include "search/stoprules.h"
#include "studychart.h"
#include "theme.h"
#include "themedchartview.h"

#include <QChart>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace {
QTableWidget *makeTable(const QStringList &headers, QWidget *parent)
{
    auto *t = new QTableWidget(0, int(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->setVisible(false);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setAlternatingRowColors(true);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

QString budgetText(const StudyBudget &b)
{
    switch (b.kind) {
    case StudyBudget::Kind::Usd:
        return QObject::tr("$%1").arg(b.amount, 0, 'g', 6);
    case StudyBudget::Kind::Tokens:
        return QObject::tr("%1 tokens").arg(b.amount, 0, 'f', 0);
    case StudyBudget::Kind::Evaluations:
        break;
    }
    return QObject::tr("%1 evaluations").arg(b.amount, 0, 'f', 0);
}
} // namespace

StudyView::StudyView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("studySummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    auto *split = new QSplitter(Qt::Horizontal, this);
    m_tabs = new QTabWidget(split);
    m_tabs->setObjectName(QStringLiteral("studyTabs"));
    m_table = makeTable({tr("Task"), tr("Arm"), tr("Repeats"), tr("Best % of peak"), tr("Speedup"), tr("USD"),
                     tr("Tokens"), tr("Evaluations"), tr("Device s")},
                    m_tabs);
    m_table->setObjectName(QStringLiteral("studyTable"));
    m_table->setToolTip(tr("Per task and arm, over its repeats: mean [least-most]. Cost columns are means "
                           "per run; device s is the evaluations' time on the host"));
    m_sessions = makeTable({tr("Task"), tr("Arm"), tr("Repeat"), tr("Session"), tr("Rounds"),
                        tr("Best % of peak"), tr("Evaluations"), tr("State")},
                       m_tabs);
    m_sessions->setObjectName(QStringLiteral("studySessions"));
    m_sessions->setToolTip(tr("Every run of the study is an ordinary session: Enter or a double-click opens "
                              "it in the Search dock"));
    m_tabs->addTab(m_table, tr("&Result"));
    m_tabs->addTab(m_sessions, tr("S&essions"));

    auto *right = new QWidget(split);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto *taskRow = new QHBoxLayout;
    m_taskLabel = new QLabel(tr("Chart of &task:"), right);
    m_task = new QComboBox(right);
    m_task->setObjectName(QStringLiteral("studyChartTask"));
    m_taskLabel->setBuddy(m_task);
    taskRow->addWidget(m_taskLabel);
    taskRow->addWidget(m_task, 1);
    rightLayout->addLayout(taskRow);
    m_chart = new ThemedChartView(right);
    m_chart->setObjectName(QStringLiteral("studyChart"));
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumSize(280, 80); // the chart's own minimum would hold the window's height up
    rightLayout->addWidget(m_chart, 1);
    split->addWidget(m_tabs);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(m_sessions, &QAbstractItemView::activated, this, [this](const QModelIndex &index) {
        const QString id = m_sessions->item(index.row(), RunTask)->data(Qt::UserRole).toString();
        if (!id.isEmpty())
            Q_EMIT openSessionRequested(id);
    });
    connect(m_task, &QComboBox::currentIndexChanged, this, &StudyView::drawChart);
}

QString StudyView::spreadText(int n, double mean, double min, double max, int decimals)
{
    if (n == 0)
        return QStringLiteral("-");
    if (n == 1)
        return QString::number(mean, 'f', decimals);
    return QStringLiteral("%1 [%2-%3]")
        .arg(QString::number(mean, 'f', decimals), QString::number(min, 'f', decimals),
             QString::number(max, 'f', decimals));
}

void StudyView::setStudy(const StudyState &state)
{
    m_state = state;
    m_result.emplace(state);
    QString where = state.finished
                        ? tr("finished")
                        : tr("round %1 of %2 under way; if no 'accelopt study' runs it, go on with "
                             "<code>accelopt study --resume %3</code>")
                              .arg(state.round)
                              .arg(state.budget.slices)
                              .arg(state.id);
    QString text = tr("<b>Study %1</b> (%2): %3 per run in %4 rounds, %n repeat(s) of each arm; %5.", nullptr,
                      state.repeats)
                       .arg(state.id, state.tasks.join(QStringLiteral(", ")), budgetText(state.budget))
                       .arg(state.budget.slices)
                       .arg(where);
    QStringList unpriced;
    for (const StudyResult::Row &row : m_result->rows())
        if (row.runs > 0 && !row.costUsd && !unpriced.contains(row.arm))
            unpriced << row.arm;
    // One short line; the whole reason is the tooltip (the dock is a few lines high).
    if (!m_result->note().isEmpty())
        text += QStringLiteral("<br>") +
                Theme::statusHtml(Theme::Status::Warning,
                                  tr("Compared on tokens: USD unknown for %1 (a model without a price)")
                                      .arg(unpriced.join(QStringLiteral(", ")).toHtmlEscaped()));
    m_summary->setText(text);
    m_summary->setToolTip(m_result->note());
    fillTable();
    fillSessions();
    const QString task = m_task->currentText();
    {
        const QSignalBlocker block(m_task);
        m_task->clear();
        m_task->addItems(state.tasks);
        m_task->setCurrentIndex(std::max(0, int(state.tasks.indexOf(task))));
    }
    // One task: the chart needs no choice, and the row would only take the chart's height.
    m_taskLabel->setVisible(state.tasks.size() > 1);
    m_task->setVisible(state.tasks.size() > 1);
    drawChart();
}

void StudyView::fillTable()
{
    const QList<StudyResult::Row> &rows = m_result->rows();
    m_table->setRowCount(int(rows.size()));
    for (int r = 0; r < rows.size(); ++r) {
        const StudyResult::Row &row = rows.at(r);
        m_table->setItem(r, Task, TableCells::readOnly(row.task));
        QTableWidgetItem *arm = TableCells::readOnly(row.arm);
        arm->setToolTip(row.spec);
        m_table->setItem(r, Arm, arm);
        m_table->setItem(r, Repeats, TableCells::readOnly(QString::number(row.runs), true));
        m_table->setItem(r, BestPercent,
                         TableCells::readOnly(spreadText(row.percentOfPeak.n, row.percentOfPeak.mean, row.percentOfPeak.min,
                                         row.percentOfPeak.max, 2),
                              true));
        m_table->setItem(
            r, Speedup,
            TableCells::readOnly(spreadText(row.speedup.n, row.speedup.mean, row.speedup.min, row.speedup.max, 3), true));
        QTableWidgetItem *usd = TableCells::readOnly(row.costUsd ? QString::number(*row.costUsd, 'f', 4)
                                                 : (row.runs > 0 ? tr("unpriced") : QStringLiteral("-")),
                                     true);
        if (!row.costUsd && row.runs > 0) {
            usd->setForeground(Theme::statusColor(Theme::Status::Warning));
            usd->setToolTip(tr("%n model call(s) of this arm had no price in the LLM settings (accelopt models "
                               "price), so its money spent is unknown; compare it on tokens and evaluations",
                               nullptr, row.unpricedCalls));
        }
        m_table->setItem(r, Usd, usd);
        m_table->setItem(r, Tokens, TableCells::readOnly(QString::number(row.tokens, 'f', 0), true));
        m_table->setItem(r, Evaluations, TableCells::readOnly(QString::number(row.evaluations, 'f', 1), true));
        m_table->setItem(r, DeviceSeconds, TableCells::readOnly(QString::number(row.deviceSeconds, 'f', 2), true));
    }
}

void StudyView::fillSessions()
{
    const int current = m_sessions->currentRow();
    m_sessions->setRowCount(int(m_state.runs.size()));
    for (int r = 0; r < m_state.runs.size(); ++r) {
        const StudyState::Run &run = m_state.runs.at(r);
        const RunMeasure *last = run.checkpoints.isEmpty() ? nullptr : &run.checkpoints.last().measure;
        QTableWidgetItem *task = TableCells::readOnly(run.task);
        task->setData(Qt::UserRole, run.sessionId);
        m_sessions->setItem(r, RunTask, task);
        m_sessions->setItem(r, RunArm, TableCells::readOnly(run.arm));
        m_sessions->setItem(r, RunRepeat, TableCells::readOnly(QString::number(run.repeat + 1), true));
        QTableWidgetItem *session = TableCells::readOnly(run.sessionId.isEmpty() ? QStringLiteral("-") : run.sessionId.left(8));
        session->setToolTip(run.sessionId);
        m_sessions->setItem(r, RunSession, session);
        m_sessions->setItem(r, RunRounds, TableCells::readOnly(QString::number(run.checkpoints.size()), true));
        m_sessions->setItem(r, RunBest,
                            TableCells::readOnly(last && last->bestPercentOfPeak
                                     ? QString::number(*last->bestPercentOfPeak, 'f', 2)
                                     : QStringLiteral("-"),
                                 true));
        m_sessions->setItem(r, RunEvaluations,
                            TableCells::readOnly(last ? QString::number(last->evaluations) : QStringLiteral("-"), true));
        QString state;
        Theme::Status tone = Theme::Status::Idle;
        const std::optional<StopReason> reason = StopRules::fromName(run.stopReason);
        if (run.sessionId.isEmpty()) {
            state = tr("not started");
        } else if (run.done) {
            const bool failed = reason && StopRules::isFailure(*reason);
            tone = failed ? Theme::Status::Bad : Theme::Status::Good;
            state = tr("ended: %1").arg(reason ? StopRules::describe(*reason) : run.stopReason);
        } else if (last && run.checkpoints.last().round >= m_state.budget.slices) {
            tone = Theme::Status::Good;
            state = tr("budget spent");
        } else {
            tone = m_state.finished ? Theme::Status::Idle : Theme::Status::Busy;
            state = last ? tr("after round %1 of %2").arg(run.checkpoints.last().round).arg(m_state.budget.slices)
                         : tr("first round under way");
        }
        QTableWidgetItem *stateItem = TableCells::readOnly(state);
        stateItem->setForeground(Theme::statusColor(tone));
        m_sessions->setItem(r, RunState, stateItem);
    }
    if (current >= 0 && current < m_sessions->rowCount())
        m_sessions->selectRow(current);
}

void StudyView::drawChart()
{
    if (!m_result)
        return;
    QChart *chart = StudyChart::build(*m_result, m_task->currentText());
    ThemedChartView::style(chart, palette());
    QChart *old = m_chart->chart();
    m_chart->setChart(chart);
    delete old;
}
