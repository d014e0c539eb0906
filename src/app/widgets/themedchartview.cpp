#include "themedchartview.h"

#include <QAbstractAxis>
#include <QAbstractBarSeries>
#include <QBarSet>
#include <QChart>
#include <QEvent>
#include <QLegend>
#include <QLineSeries>

ThemedChartView::ThemedChartView(QWidget *parent) : QChartView(parent) {}

void ThemedChartView::style(QChart *chart, const QPalette &palette)
{
    if (!chart)
        return;
    const QColor ink = palette.color(QPalette::WindowText);
    QColor grid = palette.color(QPalette::Mid);
    grid.setAlpha(110);
    chart->setBackgroundBrush(palette.base());
    chart->setBackgroundPen(Qt::NoPen);
    chart->setTitleBrush(ink);
    chart->legend()->setLabelColor(ink);
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsColor(ink);
        axis->setTitleBrush(ink);
        axis->setLinePenColor(palette.color(QPalette::Mid));
        axis->setGridLineColor(grid);
        axis->setMinorGridLineColor(grid);
    }
    for (QAbstractSeries *series : chart->series()) {
        if (auto *bars = qobject_cast<QAbstractBarSeries *>(series))
            for (QBarSet *set : bars->barSets())
                set->setLabelColor(ink);
        if (auto *line = qobject_cast<QLineSeries *>(series);
            line && series->property("inkColored").toBool()) {
            QPen pen = line->pen();
            pen.setColor(ink);
            line->setPen(pen);
        }
    }
}

void ThemedChartView::changeEvent(QEvent *event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        style(chart(), palette());
}
