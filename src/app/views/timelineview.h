#pragma once

#include "model/evalprofile.h"

#include <QWidget>

// The instruction timeline, one row per engine (Tensor, Vector, Scalar, GpSimd) and per DMA queue, as Neuron
// Explorer's device trace shows it. Drawn directly (not a scene of items) so 100,000 instructions render and
// zoom at frame rate: per row the events are sorted, the visible ones found by binary search, and events
// narrower than a pixel merged into one bar. The wheel zooms around the cursor, dragging pans, Shift+drag
// selects a range and sums each engine's busy time in it, hovering tells an instruction, a click asks for its
// source line.
class TimelineView : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineView(QWidget *parent = nullptr);

    void setProfile(const EvalProfilePtr &profile);
    EvalProfilePtr profile() const { return m_profile; }
    bool hasEvents() const;

    void showAll();
    void setVisibleRange(double startNs, double endNs);
    double visibleStart() const { return m_start; }
    double visibleEnd() const { return m_end; }
    void zoom(double factor, double anchorNs); // factor > 1 zooms in
    void pan(double ns);

    int rowCount() const { return int(m_rows.size()); }
    QString rowLabel(int row) const;
    int rowAt(int y) const;
    int eventAt(const QPoint &pos) const; // index into the timeline, -1 for none
    QPoint pointOf(int event) const;      // the centre of an event's bar, where it is on screen
    QString describe(int event) const;

    void setSelection(double startNs, double endNs); // empty when start == end
    bool hasSelection() const { return m_selEnd > m_selStart; }
    // Busy time per engine inside the selection (DMA: summed over its queues), clipped to it.
    EvalProfile::EngineTimes selectionBusy() const;

    QSize sizeHint() const override { return {800, 260}; }
    static constexpr int labelWidthForTests() { return labelWidth; } // where the plot starts

Q_SIGNALS:
    void lineActivated(int line);
    void selectionChanged();

protected:
    void paintEvent(QPaintEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct Row
    {
        int unit = -1;   // index into the timeline's units; -1 for an engine that issued nothing
        int engine = -1; // EvalProfile::Engine
        QList<int> events;    // sorted by start
        QList<double> maxEnd; // running maximum of the events' ends, for the binary search
    };
    double xToNs(double x) const;
    double nsToX(double ns) const;
    QRectF plotRect() const;
    QRectF rowRect(int row) const;
    void clampRange();
    void drawAxis(QPainter &p, const QRectF &plot) const;

    EvalProfilePtr m_profile;
    QList<Row> m_rows;
    double m_total = 0; // the timeline's end
    double m_start = 0, m_end = 1;
    double m_selStart = 0, m_selEnd = 0;
    QPoint m_pressPos;
    double m_pressStart = 0, m_pressSelAnchor = 0;
    bool m_dragging = false, m_selecting = false;
    static constexpr int labelWidth = 96;
    static constexpr int axisHeight = 22;
    static constexpr int rowHeight = 22;
};
