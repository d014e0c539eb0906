#include "studychart.h"

#include <QAreaSeries>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QStringList>
#include <QValueAxis>

#include <algorithm>

namespace {
// Hues apart from one another and readable on white and on the dark theme's base, as a chart's categories.
constexpr QRgb armColors[] = {0x1f77b4, 0xe6550d, 0x31a354, 0x9467bd, 0xd6616b, 0x17becf, 0xbcbd22, 0x8c564b};
} // namespace

QColor StudyChart::armColor(int index)
{
    return QColor(armColors[index % int(std::size(armColors))]);
}

QString StudyChart::axisTitle(const StudyResult &result)
{
    if (result.basis() == QStringLiteral("usd"))
        return QObject::tr("cost per run, USD (every arm priced)");
    QStringList unpriced;
    for (const StudyResult::Row &row : result.rows())
        if (row.runs > 0 && !row.costUsd && !unpriced.contains(row.arm))
            unpriced << row.arm;
    if (unpriced.isEmpty()) // no model call yet: nothing was priced or not
        return QObject::tr("cost per run, tokens (no model call priced yet)");
    return QObject::tr("cost per run, tokens (USD unknown: %1 unpriced)").arg(unpriced.join(QStringLiteral(", ")));
}

QChart *StudyChart::build(const StudyResult &result, const QString &task)
{
    auto *chart = new QChart;
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->legend()->setAlignment(Qt::AlignTop);
    double xMax = 0, yMin = 100, yMax = 0;
    bool any = false;
    int index = -1;
    for (const StudyResult::Series &s : result.chart()) {
        if (s.task != task)
            continue;
        ++index;
        const QColor color = armColor(index);
        auto *line = new QLineSeries;
        line->setName(s.arm);
        line->setProperty("arm", s.arm);
        line->setPointsVisible(true);
        QPen pen(color);
        pen.setWidthF(2);
        line->setPen(pen);
        auto *upper = new QLineSeries;
        auto *lower = new QLineSeries;
        bool spread = false;
        for (const StudyResult::Point &p : s.points) {
            if (p.percentOfPeak.n == 0)
                continue; // no repeat had a correct kernel by then: nothing to place
            line->append(p.cost, p.percentOfPeak.mean);
            upper->append(p.cost, p.percentOfPeak.max);
            lower->append(p.cost, p.percentOfPeak.min);
            spread = spread || p.percentOfPeak.max > p.percentOfPeak.min;
            xMax = std::max(xMax, p.cost);
            yMin = std::min(yMin, p.percentOfPeak.min);
            yMax = std::max(yMax, p.percentOfPeak.max);
            any = true;
        }
        if (spread) {
            // Behind the line, so the line reads over its band; not in the legend, whose entry is the line.
            auto *band = new QAreaSeries;
            band->setUpperSeries(upper);
            band->setLowerSeries(lower);
            band->setName(QObject::tr("%1 (spread over repeats)").arg(s.arm));
            band->setProperty("band", s.arm);
            QColor fill = color;
            fill.setAlpha(50);
            band->setBrush(fill);
            QColor border = color;
            border.setAlpha(90);
            band->setPen(QPen(border, 1));
            chart->addSeries(band);
            // The chart owns the band, the band its edges (which are no series of the chart).
            for (QLineSeries *edge : {upper, lower})
                if (!edge->parent())
                    edge->setParent(band);
            chart->legend()->markers(band).value(0)->setVisible(false);
        } else {
            delete upper;
            delete lower;
        }
        chart->addSeries(line);
    }
    auto *x = new QValueAxis;
    x->setTitleText(axisTitle(result));
    x->setLabelFormat(result.basis() == QStringLiteral("usd") ? QStringLiteral("%.3g")
                                                              : QStringLiteral("%.0f"));
    x->setRange(0, any && xMax > 0 ? xMax * 1.05 : 1);
    auto *y = new QValueAxis;
    y->setTitleText(QObject::tr("best % of peak"));
    y->setLabelFormat(QStringLiteral("%.3g"));
    if (!any) {
        yMin = 0;
        yMax = 1;
    }
    const double pad = std::max((yMax - yMin) * 0.1, 0.05 * std::max(yMax, 1.0));
    y->setRange(std::max(0.0, yMin - pad), yMax + pad);
    x->applyNiceNumbers(); // round ticks (0, 4000, 8000), not fractions of the largest cost
    y->applyNiceNumbers();
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries *s : chart->series()) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    return chart;
}
