#pragma once

class QDockWidget;
class QMainWindow;

// The docks' sizes at first start (or after a layout reset), from the window's size: the editor keeps at
// least 80 columns of its font, the Search dock and the Tasks column share what is left, and the bottom docks
// get enough height for a chart's tick labels. Fixed sizes fitted a 1920-pixel screen and squeezed the editor
// to a few columns at 1280.
class DefaultLayout
{
public:
    static void sizeDocks(QMainWindow *window, QDockWidget *search, QDockWidget *tasks, QDockWidget *bottom);
    // Moves and shrinks a window whose frame hangs over the screen's edge (a first start sized to a small
    // screen, before the frame's size was known) back inside it.
    static void fitFrameToScreen(QMainWindow *window);
    // What 80 columns of the kernel editor's font take, with its margins (line numbers, folding, heat).
    static int editorWidthFor80Columns();
};
