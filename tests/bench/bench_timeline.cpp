// How fast the Timeline view draws: 100,000 instructions over the four engines and 16 DMA queues (shaped like
// a tiled kernel: bursts of DMA, then compute). Prints the first render (setProfile and a complete paint) and
// the per-frame time of zooming and panning (each step followed by a complete paint), median and worst.
// Targets: first render 100 ms; zoom and pan 16 ms per frame.
#include "isolatedsettings.h"
#include "timelineview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QRandomGenerator>
#include <QTextStream>

#include <algorithm>

namespace {
EvalProfilePtr syntheticProfile(int events)
{
    EvalProfile p;
    p.available = true;
    EvalProfile::Timeline t;
    t.units = {QStringLiteral("tensor"), QStringLiteral("vector"), QStringLiteral("scalar"), QStringLiteral("gpsimd")};
    for (int q = 0; q < 16; ++q)
        t.units << QStringLiteral("dma%1").arg(q);
    t.ops = {QStringLiteral("nc_matmul"), QStringLiteral("tensor_tensor"), QStringLiteral("activation"),
             QStringLiteral("iota"), QStringLiteral("dma")};
    QRandomGenerator rng(7);
    std::array<double, 20> unitEnd{};
    for (int i = 0; i < events; ++i) {
        const int unit = i % 5 == 4 ? int(rng.bounded(4)) : 4 + int(rng.bounded(16));
        const double dur = unit < 4 ? 50 + rng.bounded(400) : 300 + rng.bounded(2000);
        const double start = unitEnd[unit] + rng.bounded(100);
        unitEnd[unit] = start + dur;
        t.unit << unit;
        t.op << (unit < 4 ? unit : 4);
        t.line << 10 + i % 40;
        t.startNs << start;
        t.durNs << dur;
        t.partitions << 128;
        t.freeElems << 512;
        t.bytes << 65536;
    }
    p.timeline = std::move(t);
    return std::make_shared<const EvalProfile>(std::move(p));
}

double median(QList<double> v)
{
    std::sort(v.begin(), v.end());
    return v.at(v.size() / 2);
}

// A complete paint into an image the size of the widget, as the screen would get it.
void paint(TimelineView &view, QImage &image)
{
    QPainter painter(&image);
    view.render(&painter);
}
} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    IsolatedSettings settings;
    const EvalProfilePtr profile = syntheticProfile(100000);
    TimelineView view;
    view.resize(1400, 560);
    view.show();
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    paint(view, image); // fonts and the paint engine warm, as in a running window

    QElapsedTimer t;
    t.start();
    view.setProfile(profile);
    paint(view, image);
    const double first = t.nsecsElapsed() / 1e6;

    QList<double> zoomMs, panMs;
    const double mid = (view.visibleStart() + view.visibleEnd()) / 2;
    for (int i = 0; i < 40; ++i) {
        t.restart();
        view.zoom(i < 20 ? 1.25 : 0.8, mid);
        paint(view, image);
        zoomMs << t.nsecsElapsed() / 1e6;
    }
    view.showAll();
    view.zoom(4, mid);
    for (int i = 0; i < 40; ++i) {
        t.restart();
        view.pan((i < 20 ? 1 : -1) * (view.visibleEnd() - view.visibleStart()) * 0.05);
        paint(view, image);
        panMs << t.nsecsElapsed() / 1e6;
    }
    view.showAll();
    t.restart();
    paint(view, image);
    const double whole = t.nsecsElapsed() / 1e6;
    QTextStream out(stdout);
    out << QStringLiteral("bench_timeline: %1 instructions, %2 rows, 1400x560 px\n").arg(profile->timeline->count()).arg(view.rowCount());
    out << QStringLiteral("first render (setProfile + paint): %1 ms (target 100 ms)\n").arg(first, 0, 'f', 2);
    out << QStringLiteral("repaint, everything in view: %1 ms\n").arg(whole, 0, 'f', 2);
    out << QStringLiteral("zoom frame: median %1 ms, max %2 ms (target 16 ms)\n")
               .arg(median(zoomMs), 0, 'f', 2)
               .arg(*std::max_element(zoomMs.cbegin(), zoomMs.cend()), 0, 'f', 2);
    out << QStringLiteral("pan frame: median %1 ms, max %2 ms (target 16 ms)\n")
               .arg(median(panMs), 0, 'f', 2)
               .arg(*std::max_element(panMs.cbegin(), panMs.cend()), 0, 'f', 2);
    (void)argc;
    return 0;
}
