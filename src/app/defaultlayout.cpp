#include "defaultlayout.h"

#include <QDockWidget>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QMainWindow>
#include <QScreen>

#include <algorithm>

int DefaultLayout::editorWidthFor80Columns()
{
    const QFontMetrics mono(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // Line numbers (five digits), the fold margin, the heat gutter and a vertical scroll bar.
    const int margins = mono.horizontalAdvance(QStringLiteral("000000")) + 14 + 6 + 18;
    return 80 * mono.horizontalAdvance(u'x') + margins;
}

void DefaultLayout::fitFrameToScreen(QMainWindow *window)
{
    if (!window->screen())
        return;
    const QRect available = window->screen()->availableGeometry();
    const QRect frame = window->frameGeometry();
    const int wider = frame.width() - available.width(), taller = frame.height() - available.height();
    if (wider <= 0 && taller <= 0)
        return;
    window->resize(window->width() - std::max(0, wider), window->height() - std::max(0, taller));
    window->move(available.topLeft());
}

void DefaultLayout::sizeDocks(QMainWindow *window, QDockWidget *search, QDockWidget *tasks,
                              QDockWidget *bottom)
{
    const int width = window->width();
    const int spare = std::max(0, width - editorWidthFor80Columns() - 24); // separators and frames
    const int searchWidth = std::clamp(spare * 3 / 5, 300, 520);
    const int tasksWidth = std::clamp(spare - searchWidth, 170, 280);
    window->resizeDocks({search, tasks}, {searchWidth, tasksWidth}, Qt::Horizontal);
    window->resizeDocks({bottom}, {std::clamp(window->height() * 3 / 10, 210, 320)}, Qt::Vertical);
}
