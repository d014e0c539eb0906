#include "resultsdock.h"

#include "appcontext.h"
#include "itemmodels/benchmarklistmodel.h"
#include "kerneleditor.h"
#include "statusproxy.h"
#include "theme.h"

#include <QDateTime>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

ResultsDock::ResultsDock(AppContext *context, QWidget *parent)
    : QDockWidget(tr("Results"), parent), m_context(context), m_model(new BenchmarkListModel(this))
{
    setObjectName(QStringLiteral("ResultsDock"));
    auto *splitter = new QSplitter(Qt::Vertical, this);
    m_view = new QTableView(splitter);
    m_view->setObjectName(QStringLiteral("resultsView"));
    auto *proxy = new StatusProxy(BenchmarkListModel::Status, -1, this);
    proxy->setSourceModel(m_model);
    m_view->setModel(proxy);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->setWordWrap(false);
    m_details = new QLabel(splitter);
    m_details->setObjectName(QStringLiteral("resultDetails"));
    m_details->setWordWrap(true);
    m_details->setTextFormat(Qt::RichText);
    m_details->setTextInteractionFlags(Qt::TextBrowserInteraction);
    m_details->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_details->setMargin(6);
    m_details->setText(tr("Press F5 to benchmark the kernel in the active editor on the host shown in the "
                          "toolbar."));
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    setWidget(splitter);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    showDetails(m_model->at(current.row()).job);
            });
    connect(m_details, &QLabel::linkActivated, this, [this](const QString &link) {
        const QStringList parts = link.split(u':'); // line:<job>:<n>
        if (parts.size() == 3 && parts.at(0) == QStringLiteral("line"))
            if (KernelEditor *editor = m_editors.value(parts.at(1).toULongLong()))
                Q_EMIT lineActivated(editor, parts.at(2).toInt());
    });
    connect(context, &AppContext::benchmarkFinished, this, &ResultsDock::onFinished);
}

int ResultsDock::errorLine(const QString &error)
{
    static const QRegularExpression line(QStringLiteral("\\bline (\\d+)\\b"));
    const QRegularExpressionMatch m = line.match(error);
    return m.hasMatch() ? m.captured(1).toInt() : 0;
}

quint64 ResultsDock::benchmark(KernelEditor *editor, const EvalRequest &request, const QString &taskName,
                               const QString &host)
{
    editor->clearErrors();
    const quint64 job = m_context->benchmark(request, host);
    BenchmarkListModel::Run run;
    run.job = job;
    run.kernel = editor->title();
    run.task = taskName;
    run.host = host;
    run.target = request.target;
    run.size = request.size;
    run.submitted = QDateTime::currentDateTime();
    m_model->add(run);
    m_editors.insert(job, editor);
    m_view->selectRow(0);
    showDetails(job);
    show();
    raise();
    return job;
}

void ResultsDock::onFinished(quint64 job, const Evaluation &evaluation)
{
    if (!m_model->finish(job, evaluation))
        return; // not one of ours
    if (KernelEditor *editor = m_editors.value(job); editor && !evaluation.ok())
        editor->markError(errorLine(evaluation.error), evaluation.statusName() + QStringLiteral(": ") +
                                                           evaluation.error.section(u'\n', 0, 0));
    if (m_shown == job || m_model->indexOf(job).row() == 0)
        showDetails(job);
    Q_EMIT finished(job, evaluation);
}

void ResultsDock::showDetails(quint64 job)
{
    m_shown = job;
    const BenchmarkListModel::Run *run = m_model->run(job);
    if (!run)
        return;
    QString html = QStringLiteral("<b>%1</b> · %2 on %3 (%4, %5 size)")
                       .arg(run->kernel.toHtmlEscaped(), run->task.toHtmlEscaped(), run->host.toHtmlEscaped(),
                            run->target, run->size);
    if (!run->evaluation) {
        html += tr("<br>running…");
    } else {
        const Evaluation &e = *run->evaluation;
        QStringList facts;
        facts << tr("status <b>%1</b>").arg(e.statusName());
        if (e.correct)
            facts << (*e.correct ? tr("correct") : Theme::statusHtml(Theme::Status::Bad, tr("incorrect")));
        if (e.l2RelErr)
            facts << tr("L2 rel. error %1").arg(*e.l2RelErr, 0, 'g', 3);
        if (e.wallSeconds)
            facts << tr("%1 s on the host").arg(*e.wallSeconds, 0, 'f', 1);
        html += QStringLiteral("<br>") + facts.join(QStringLiteral(" · "));
        if (!e.error.isEmpty()) {
            QString text = e.error.left(4000).toHtmlEscaped();
            if (const int line = errorLine(e.error); line > 0)
                text.replace(QRegularExpression(QStringLiteral("\\bline %1\\b").arg(line)),
                             QStringLiteral("<a href='line:%1:%2'>line %2</a>").arg(job).arg(line));
            html += QStringLiteral("<pre style='white-space:pre-wrap'>%1</pre>").arg(text);
        }
    }
    m_details->setText(html);
}
