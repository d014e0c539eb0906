// How fast the Compare view opens: two 2000-line kernels with a tenth of their lines changed (edits, a few
// insertions and deletions). Prints the diff's time alone and the time from constructing the view to its
// first complete paint (a grab() of the whole widget: every pane, margin, marker and the delta table),
// as the median and the worst of several runs. Target: 50 ms for the open and first paint.
#include "compareview.h"
#include "diff/kerneldiff.h"
#include "isolatedsettings.h"
#include "kerneleditor.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QStandardItemModel>
#include <QTableView>
#include <QTextStream>

#include <algorithm>
#include <cstdlib>

namespace {
QString kernel(int lines, bool changed)
{
    QStringList out{QStringLiteral("import numpy as np"), QStringLiteral("import neuronxcc.nki.language as nl"),
                    QString(), QStringLiteral("@nki.jit"), QStringLiteral("def kernel(x, w):")};
    for (int i = 0; out.size() < lines; ++i) {
        QString line = QStringLiteral("    t%1 = nl.multiply(x[%2], w[%3], dtype=np.float32)  # step %1")
                           .arg(i)
                           .arg(i % 7)
                           .arg(i % 11);
        if (changed && i % 10 == 3)
            line.replace(QStringLiteral("multiply"), QStringLiteral("add")).append(QStringLiteral(" (fused)"));
        if (changed && i % 97 == 50)
            continue; // a deleted line
        out << line;
        if (changed && i % 89 == 40)
            out << QStringLiteral("    nl.store(out[%1], value=t%1)  # inserted").arg(i);
    }
    return out.join(u'\n') + u'\n';
}

double median(QList<double> v)
{
    std::sort(v.begin(), v.end());
    return v.at(v.size() / 2);
}
} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    IsolatedSettings settings;
    ComparePair pair;
    pair.left.name = QStringLiteral("slow.py");
    pair.right.name = QStringLiteral("fast.py");
    pair.left.text = kernel(2000, false);
    pair.right.text = kernel(2000, true);
    const int runs = argc > 1 ? std::max(3, std::atoi(argv[1])) : 15;

    // The workbench is up when a comparison opens: an editor has painted a kernel and a table its rows, so
    // fonts and styles are loaded. That much is done first, outside the timing.
    {
        KernelEditor editor;
        editor.setText(pair.left.text);
        editor.resize(800, 600);
        editor.show();
        QTableView table;
        QStandardItemModel model(20, 5);
        table.setModel(&model);
        table.show();
        if (editor.grab().isNull() || table.grab().isNull())
            return 1;
    }

    QList<double> diffMs, openMs;
    KernelDiff::Result diff;
    for (int i = 0; i < runs; ++i) {
        QElapsedTimer t;
        t.start();
        diff = KernelDiff::compute(pair.left.text, pair.right.text);
        diffMs << t.nsecsElapsed() / 1e6;
    }
    for (int i = 0; i < runs; ++i) {
        QElapsedTimer t;
        t.start();
        CompareView view(pair);
        view.resize(1400, 900);
        view.show();
        const QPixmap painted = view.grab();
        openMs << t.nsecsElapsed() / 1e6;
        if (painted.isNull())
            return 1;
    }
    QTextStream out(stdout);
    out << QStringLiteral("bench_compare: %1 and %2 lines, %3 changed, %4 removed, %5 added rows, %6 changes\n")
               .arg(diff.leftLines.size())
               .arg(diff.rightLines.size())
               .arg(diff.changed)
               .arg(diff.removed)
               .arg(diff.added)
               .arg(diff.changes.size());
    out << QStringLiteral("diff: median %1 ms, max %2 ms (%3 runs)\n")
               .arg(median(diffMs), 0, 'f', 2)
               .arg(*std::max_element(diffMs.cbegin(), diffMs.cend()), 0, 'f', 2)
               .arg(runs);
    // The first comparison also builds the caches of its own widgets: told apart from the ones after it.
    const double first = openMs.takeFirst();
    out << QStringLiteral("open and first paint: first %1 ms; then median %2 ms, max %3 ms (target 50 ms)\n")
               .arg(first, 0, 'f', 2)
               .arg(median(openMs), 0, 'f', 2)
               .arg(*std::max_element(openMs.cbegin(), openMs.cend()), 0, 'f', 2);
    return 0;
}
