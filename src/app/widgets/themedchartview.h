#pragma once

#include <QChartView>

// A chart view whose charts take the window's palette: Qt Charts paints white with black text whatever the
// application palette says, so the dark theme showed white boxes. Restyled when the palette changes (a theme
// switch), and by the owner for each new chart through style().
class ThemedChartView : public QChartView
{
    Q_OBJECT
public:
    explicit ThemedChartView(QWidget *parent = nullptr);

    // Background, title, legend, axes, grid and bar labels from `palette`; a series with the property
    // "inkColored" set draws in the text colour (a roof line, which must read on either background).
    static void style(QChart *chart, const QPalette &palette);

protected:
    void changeEvent(QEvent *event) override;
};
