#include "calibrationview.h"
#include "tablecells.h"

#include "appcontext.h"
#include "themedchartview.h"

#include <QChart>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPushButton>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace {
QString percent(double fraction, bool sign = false)
{
    return QStringLiteral("%1%2 %")
        .arg(sign && fraction > 0 ? QStringLiteral("+") : QString())
        .arg(fraction * 100.0, 0, 'f', 1);
}

QTableWidget *table(const QStringList &headers, QWidget *parent)
{
    auto *t = new QTableWidget(0, int(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->setVisible(false);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}
} // namespace

CalibrationView::CalibrationView(AppContext *context, QWidget *parent) : QWidget(parent), m_context(context)
{
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    auto *reload = new QPushButton(tr("Refresh"), this);
    reload->setToolTip(tr("Read the workspace's evaluations again"));
    top->addWidget(m_summary, 1);
    top->addWidget(reload, 0, Qt::AlignTop);
    layout->addLayout(top);
    // Tables on the left, the scatter on the right at the tab's full height: the dock is short, and a log
    // axis needs room for its decade labels.
    auto *split = new QSplitter(Qt::Horizontal, this);
    auto *left = new QWidget(split);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_groups = table({tr("Kind"), tr("Target"), tr("Kernels"), tr("Median |error|"), tr("Worst |error|"),
                      tr("Margin")},
                     left);
    m_groups->horizontalHeader()->setStretchLastSection(false);
    m_groups->setToolTip(tr("Per kind of kernel (nkisim's roofline bound) and target. Margin: how far above "
                            "the beam nkisim may put a kernel that the device could still rank in it"));
    leftLayout->addWidget(m_groups);
    m_pairs = table({tr("Kernel"), tr("Task"), tr("Target"), tr("Kind"), tr("nkisim ms"), tr("Device ms"),
                     tr("Error"), tr("Host")},
                    left);
    m_pairs->setToolTip(tr("Error = (nkisim - device) / device: negative when nkisim predicts less time"));
    leftLayout->addWidget(m_pairs, 1);
    m_chart = new ThemedChartView(split);
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumSize(300, 80); // the chart's own minimum would hold the window's height up
    split->addWidget(left);
    split->addWidget(m_chart);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(reload, &QPushButton::clicked, this, &CalibrationView::refresh);
    if (m_context)
        connect(m_context, &AppContext::calibrationLoaded, this,
                [this](quint64 job, const Calibration &calibration, const QString &error) {
                    if (job != m_job)
                        return; // an older request
                    setCalibration(calibration);
                    if (!error.isEmpty())
                        m_summary->setText(tr("Could not read the workspace: %1").arg(error));
                });
    setCalibration(Calibration{});
}

void CalibrationView::refresh()
{
    if (m_context)
        m_job = m_context->loadCalibration(QString());
}

void CalibrationView::setCalibration(const Calibration &calibration)
{
    m_calibration = calibration;
    const QList<CalibrationPair> &pairs = calibration.pairs();
    m_summary->setText(
        pairs.isEmpty()
            ? tr("No kernel has been measured both on nkisim and on a hardware host yet. A session on a "
                 "hardware host that evaluates kernels a session on nkisim evaluated (or the reverse) fills "
                 "this table.")
            : tr("%n kernel(s) measured on both nkisim and hardware. Error: how far nkisim's prediction is "
                 "from the device's measurement. Plot: nkisim ms across, device ms up (log-log); the line is "
                 "nkisim = device.",
                 nullptr, int(pairs.size())));
    m_groups->setRowCount(int(calibration.groups().size()));
    int row = 0;
    for (const CalibrationGroup &g : calibration.groups()) {
        const std::optional<double> own = g.rankingMargin();
        const double margin = calibration.margin(g.kernelClass, g.target);
        m_groups->setItem(row, 0, TableCells::readOnly(g.kernelClass));
        m_groups->setItem(row, 1, TableCells::readOnly(g.target));
        m_groups->setItem(row, 2, TableCells::readOnly(QString::number(g.kernels), true));
        m_groups->setItem(row, 3, TableCells::readOnly(percent(g.medianAbsError), true));
        m_groups->setItem(row, 4, TableCells::readOnly(percent(g.worstAbsError), true));
        QTableWidgetItem *m = TableCells::readOnly(percent(margin), true);
        if (!own)
            m->setToolTip(tr("The default: fewer than two kernels of this kind are measured on both"));
        m_groups->setItem(row, 5, m);
        ++row;
    }
    // As tall as its rows (up to four), so the pairs below get the rest of a short dock.
    int height = m_groups->horizontalHeader()->sizeHint().height() + 2 * m_groups->frameWidth();
    for (int r = 0; r < std::min(m_groups->rowCount(), 4); ++r)
        height += m_groups->verticalHeader()->sectionSize(r);
    m_groups->setFixedHeight(height + (m_groups->rowCount() == 0 ? m_groups->verticalHeader()->defaultSectionSize() : 0));
    m_pairs->setRowCount(int(pairs.size()));
    row = 0;
    double lo = 0, hi = 0;
    auto *points = new QScatterSeries;
    points->setName(tr("Kernels"));
    points->setMarkerSize(9);
    for (const CalibrationPair &p : pairs) {
        m_pairs->setItem(row, 0, TableCells::readOnly(p.sourceHash.left(10)));
        m_pairs->setItem(row, 1, TableCells::readOnly(p.task));
        m_pairs->setItem(row, 2, TableCells::readOnly(p.target));
        m_pairs->setItem(row, 3, TableCells::readOnly(p.kernelClass));
        m_pairs->setItem(row, 4, TableCells::readOnly(QString::number(p.predictedMs, 'g', 4), true));
        m_pairs->setItem(row, 5, TableCells::readOnly(QString::number(p.measuredMs, 'g', 4), true));
        m_pairs->setItem(row, 6, TableCells::readOnly(percent(p.error(), true), true));
        m_pairs->setItem(row, 7, TableCells::readOnly(p.host));
        m_pairs->item(row, 7)->setToolTip(p.sdk);
        points->append(p.predictedMs, p.measuredMs);
        const double a = std::min(p.predictedMs, p.measuredMs), b = std::max(p.predictedMs, p.measuredMs);
        lo = row == 0 ? a : std::min(lo, a);
        hi = row == 0 ? b : std::max(hi, b);
        ++row;
    }
    auto *chart = new QChart;
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->legend()->hide(); // the tab's text says what the line is: a legend took half the plot's height
    if (pairs.isEmpty()) {
        lo = 0.001;
        hi = 1;
    }
    lo /= 2;
    hi *= 2;
    auto *identity = new QLineSeries;
    identity->setName(tr("nkisim = device"));
    identity->append(lo, lo);
    identity->append(hi, hi);
    identity->setProperty("inkColored", true);
    chart->addSeries(identity);
    chart->addSeries(points);
    auto *x = new QLogValueAxis;
    x->setLabelFormat(QStringLiteral("%.3g"));
    x->setRange(lo, hi);
    auto *y = new QLogValueAxis;
    y->setLabelFormat(QStringLiteral("%.3g"));
    y->setRange(lo, hi);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries *s : chart->series()) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    ThemedChartView::style(chart, palette());
    QChart *old = m_chart->chart();
    m_chart->setChart(chart);
    delete old;
}
