#include "profilecharts.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QGraphicsLayout>
#include <QBarSeries>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace {
// Every figure on the charts with three significant digits, as the bars' labels and the Search dock have them;
// money with cents.
const QString figureFormat = QStringLiteral("%.3g");

// No title and the legend at the side: the charts share the bottom docks' few hundred pixels with a tab bar
// that names them, and every pixel of height left to the plot keeps its tick labels from being cut to "...".
QChart *newChart()
{
    auto *chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignRight);
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
    return chart;
}

QChart *bars(const QStringList &categories, const QString &unit,
             const QList<std::optional<double>> &current, const QList<std::optional<double>> &baseline,
             bool hasBaseline, double fixedMax)
{
    QChart *chart = newChart();
    // Upright bars, the names along the bottom: lying down, five or six names shared a plot a hundred pixels
    // high at the default dock size and each was cut to "...".
    auto *series = new QBarSeries;
    auto add = [&](const QString &name, const QList<std::optional<double>> &values, const QColor &color) {
        auto *set = new QBarSet(name);
        set->setColor(color);
        for (const std::optional<double> &value : values)
            *set << value.value_or(0.0);
        series->append(set);
    };
    if (hasBaseline)
        add(QObject::tr("Baseline"), baseline, QColor(0xb0, 0xb0, 0xb0));
    add(QObject::tr("This kernel"), current, QColor(0x3b, 0x7d, 0xd8));
    series->setLabelsVisible(true);
    series->setLabelsFormat(QStringLiteral("@value"));
    series->setLabelsPrecision(3);
    series->setLabelsPosition(QAbstractBarSeries::LabelsInsideEnd);
    chart->addSeries(series);
    auto *x = new QBarCategoryAxis;
    x->append(categories);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    auto *y = new QValueAxis;
    double top = fixedMax;
    if (top <= 0) {
        for (const auto &list : {current, baseline})
            for (const std::optional<double> &v : list)
                top = std::max(top, v.value_or(0.0));
        top = top > 0 ? top * 1.15 : 1;
        // A round top (1, 2 or 5 times a power of ten): the three ticks read 0, 10, 20, not 0, 6.9, 13.8.
        const double magnitude = std::pow(10.0, std::floor(std::log10(top)));
        for (double step : {1.0, 2.0, 5.0, 10.0})
            if (step * magnitude >= top) {
                top = step * magnitude;
                break;
            }
    }
    y->setRange(0, top);
    y->setTickCount(3);
    // The unit on each tick rather than as an axis title, which took the plot's height.
    y->setLabelFormat(figureFormat + QStringLiteral(" ") + QString(unit).replace(u'%', QStringLiteral("%%")));
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    chart->legend()->setVisible(hasBaseline);
    return chart;
}

std::optional<double> percent(std::optional<double> fraction)
{
    return fraction ? std::optional<double>(*fraction * 100.0) : std::nullopt;
}

std::optional<double> mib(std::optional<double> bytes)
{
    return bytes ? std::optional<double>(*bytes / (1024.0 * 1024.0)) : std::nullopt;
}

QList<std::optional<double>> engineValues(const Evaluation &e)
{
    const Evaluation::EngineActivity a = e.engineActivity();
    return {percent(a.tensor), percent(a.vector), percent(a.scalar), percent(a.gpsimd), percent(a.dma)};
}

QList<std::optional<double>> memoryValues(const Evaluation &e)
{
    const Evaluation::MemoryTraffic m = e.memoryTraffic();
    return {mib(m.hbmRead), mib(m.hbmWrite), mib(m.sbufRead), mib(m.sbufWrite), mib(m.psumRead), mib(m.psumWrite)};
}

} // namespace

QChart *ProfileCharts::engines(const Evaluation &current, const std::optional<Evaluation> &baseline)
{
    return bars({QObject::tr("Tensor"), QObject::tr("Vector"), QObject::tr("Scalar"), QObject::tr("GpSimd"),
                 QObject::tr("DMA")},
                QStringLiteral("%"), engineValues(current),
                baseline ? engineValues(*baseline) : QList<std::optional<double>>{}, baseline.has_value(), 100.0);
}

QChart *ProfileCharts::memory(const Evaluation &current, const std::optional<Evaluation> &baseline)
{
    return bars({QObject::tr("HBM read"), QObject::tr("HBM write"), QObject::tr("SBUF read"), QObject::tr("SBUF write"),
                 QObject::tr("PSUM read"), QObject::tr("PSUM write")},
                QObject::tr("MiB"), memoryValues(current),
                baseline ? memoryValues(*baseline) : QList<std::optional<double>>{}, baseline.has_value(), 0.0);
}

std::optional<ProfileCharts::Roof> ProfileCharts::roofOf(const Evaluation &e)
{
    Roof roof{e.rooflineFigure("peak_flops_per_s"), e.rooflineFigure("bytes_per_s")};
    if (roof.peakFlopsPerSecond <= 0 || roof.bytesPerSecond <= 0 || e.rooflineFigure("flops") <= 0)
        return std::nullopt;
    return roof;
}

std::optional<ProfileCharts::RooflinePoint> ProfileCharts::pointOf(const Evaluation &e)
{
    const double flops = e.rooflineFigure("flops");
    if (!e.ok() || !e.latencyMeanMs || *e.latencyMeanMs <= 0 || flops <= 0)
        return std::nullopt;
    // The bytes the kernel moved to and from HBM, as measured; the task's minimum when not reported.
    const Evaluation::MemoryTraffic m = e.memoryTraffic();
    double bytes = m.hbmRead.value_or(0) + m.hbmWrite.value_or(0);
    if (bytes <= 0)
        bytes = e.rooflineFigure("min_bytes");
    if (bytes <= 0)
        return std::nullopt;
    RooflinePoint p;
    p.intensity = flops / bytes;
    p.flopsPerSecond = flops / (*e.latencyMeanMs * 1e-3);
    return p;
}

QChart *ProfileCharts::roofline(const Roof &roof, const QList<RooflinePoint> &points)
{
    QChart *chart = newChart();
    double xMin = roof.ridge() / 100, xMax = roof.ridge() * 100;
    double yMin = roof.peakFlopsPerSecond / 1e4;
    for (const RooflinePoint &p : points) {
        xMin = std::min(xMin, p.intensity / 2);
        xMax = std::max(xMax, p.intensity * 2);
        yMin = std::min(yMin, p.flopsPerSecond / 2);
    }
    const double yMax = roof.peakFlopsPerSecond * 2;
    auto *roofLine = new QLineSeries;
    roofLine->setName(QObject::tr("Roof (ridge at %1 FLOP/B)").arg(roof.ridge(), 0, 'g', 3));
    roofLine->append(xMin, std::max(yMin, xMin * roof.bytesPerSecond));
    roofLine->append(roof.ridge(), roof.peakFlopsPerSecond);
    roofLine->append(xMax, roof.peakFlopsPerSecond);
    QPen pen(QColor(0x44, 0x44, 0x44));
    pen.setWidthF(2);
    roofLine->setPen(pen);
    roofLine->setProperty("inkColored", true); // dark grey vanishes on the dark theme's background
    chart->addSeries(roofLine);

    const auto scatter = [&](const QString &name, RooflinePoint::Kind kind, const QColor &color, qreal size,
                             QScatterSeries::MarkerShape shape) {
        auto *s = new QScatterSeries;
        s->setName(name);
        s->setColor(color);
        s->setBorderColor(color.darker(130));
        s->setMarkerSize(size);
        s->setMarkerShape(shape);
        s->setProperty("kind", int(kind));
        for (const RooflinePoint &p : points)
            if (p.kind == kind)
                s->append(p.intensity, p.flopsPerSecond);
        chart->addSeries(s);
        if (s->count() == 0)
            chart->legend()->markers(s).value(0)->setVisible(false);
        return s;
    };
    scatter(QObject::tr("Candidates"), RooflinePoint::Kind::Candidate, QColor(0x7f, 0xa7, 0xd9), 9,
            QScatterSeries::MarkerShapeCircle);
    scatter(QObject::tr("Baseline"), RooflinePoint::Kind::Baseline, QColor(0x8a, 0x8a, 0x8a), 13,
            QScatterSeries::MarkerShapeRectangle);
    scatter(QObject::tr("Best"), RooflinePoint::Kind::Best, QColor(0xe6, 0xa2, 0x17), 14,
            QScatterSeries::MarkerShapeStar);
    scatter(QObject::tr("This kernel"), RooflinePoint::Kind::Current, QColor(0xc6, 0x28, 0x28), 12,
            QScatterSeries::MarkerShapeTriangle);

    auto *x = new QLogValueAxis;
    x->setTitleText(QObject::tr("Arithmetic intensity (FLOP per HBM byte)"));
    x->setLabelFormat(figureFormat);
    x->setRange(xMin, xMax);
    x->setMinorTickCount(-1);
    auto *y = new QLogValueAxis;
    y->setTitleText(QObject::tr("FLOP/s"));
    y->setLabelFormat(figureFormat);
    y->setRange(yMin, yMax);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries *s : chart->series()) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    return chart;
}

QChart *ProfileCharts::progress(const QList<QPointF> &byIteration, const QList<QPointF> &byCost)
{
    QChart *chart = newChart(); // the legend names the axes: their titles took the plot's height
    auto *it = new QLineSeries;
    it->setName(QObject::tr("best % of peak, by iteration"));
    it->setPointsVisible(true);
    it->append(byIteration);
    auto *cost = new QLineSeries;
    cost->setName(QObject::tr("best % of peak, by cost (USD)"));
    cost->setPointsVisible(true);
    cost->append(byCost);
    chart->addSeries(it);
    chart->addSeries(cost);
    double top = 1, lastIteration = 1, lastCost = 0.01;
    for (const QPointF &p : byIteration) {
        top = std::max(top, p.y());
        lastIteration = std::max(lastIteration, p.x());
    }
    for (const QPointF &p : byCost) {
        top = std::max(top, p.y());
        lastCost = std::max(lastCost, p.x());
    }
    auto *y = new QValueAxis;
    // Three ticks on a round top (0, 10, 20 rather than 0, 4.02, 8.04, ...): five did not fit the plot's height
    // at the default dock size and each was cut to "...". The legend says what the axis is.
    const double step = top * 1.2 > 50 ? 10 : 5;
    y->setRange(0, std::min(100.0, std::ceil(top * 1.2 / step) * step));
    y->setTickCount(3);
    y->setLabelFormat(figureFormat);
    auto *xi = new QValueAxis;
    xi->setRange(0, lastIteration);
    xi->setTickCount(int(std::min(11.0, lastIteration + 1)));
    xi->setLabelFormat(QStringLiteral("%d"));
    auto *xc = new QValueAxis;
    xc->setRange(0, lastCost * 1.05);
    xc->setLabelFormat(QStringLiteral("$%.2f"));
    chart->addAxis(y, Qt::AlignLeft);
    chart->addAxis(xi, Qt::AlignBottom);
    chart->addAxis(xc, Qt::AlignTop);
    it->attachAxis(xi);
    it->attachAxis(y);
    cost->attachAxis(xc);
    cost->attachAxis(y);
    return chart;
}
