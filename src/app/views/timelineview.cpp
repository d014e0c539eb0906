#include "timelineview.h"

#include "theme.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace {
QColor engineColor(int engine)
{
    switch (engine) {
    case EvalProfile::Tensor:
        return QColor(0x3b, 0x7d, 0xd8);
    case EvalProfile::Vector:
        return QColor(0x2e, 0xa0, 0x5a);
    case EvalProfile::Scalar:
        return QColor(0xe0, 0x8a, 0x1e);
    case EvalProfile::GpSimd:
        return QColor(0x9b, 0x59, 0xb6);
    case -1: // an engine outside the five (Sync): apart from the DMA queues' grey
        return QColor(0x4a, 0x5a, 0x6a);
    default:
        return QColor(0x7f, 0x8c, 0x8d);
    }
}

QString duration(double ns)
{
    if (ns < 1e3)
        return QStringLiteral("%1 ns").arg(ns, 0, 'f', ns < 10 ? 2 : 0);
    if (ns < 1e6)
        return QStringLiteral("%1 µs").arg(ns / 1e3, 0, 'f', 2);
    return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', 3);
}

// Order of the rows: compute engines first, then other engines a device profile names (Sync), then the DMA
// queues by number.
int unitOrder(const QString &unit)
{
    const int engine = EvalProfile::Timeline::engineOfUnit(unit);
    if (engine >= 0 && engine < EvalProfile::Dma)
        return engine;
    if (engine < 0)
        return 50;
    return 100 + unit.mid(3).toInt();
}
} // namespace

TimelineView::TimelineView(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumHeight(axisHeight + 4 * rowHeight);
    setFocusPolicy(Qt::StrongFocus);
}

void TimelineView::setProfile(const EvalProfilePtr &profile)
{
    m_profile = profile;
    m_rows.clear();
    m_selStart = m_selEnd = 0;
    m_total = 0;
    if (hasEvents()) {
        const EvalProfile::Timeline &t = *m_profile->timeline;
        // The four compute engines always have a row, busy or not (an idle engine is a finding); DMA queues
        // get one when they carry a transfer.
        QList<int> units;
        for (int u = 0; u < t.units.size(); ++u)
            units << u;
        std::sort(units.begin(), units.end(),
                  [&t](int a, int b) { return unitOrder(t.units.at(a)) < unitOrder(t.units.at(b)); });
        QList<int> unitRow(t.units.size(), -1);
        for (int engine = 0; engine < EvalProfile::Dma; ++engine) {
            const int unit = int(t.units.indexOf(EvalProfile::engineName(engine)));
            if (unit >= 0)
                unitRow[unit] = int(m_rows.size());
            m_rows.append(Row{unit, engine, {}, {}});
        }
        for (int u : units)
            if (unitRow.at(u) < 0) {
                unitRow[u] = int(m_rows.size());
                m_rows.append(Row{u, EvalProfile::Timeline::engineOfUnit(t.units.at(u)), {}, {}});
            }
        for (int i = 0; i < t.count(); ++i)
            m_rows[unitRow.at(t.unit.at(i))].events.append(i);
        for (Row &row : m_rows) {
            std::stable_sort(row.events.begin(), row.events.end(),
                             [&t](int a, int b) { return t.startNs.at(a) < t.startNs.at(b); });
            double running = 0;
            row.maxEnd.reserve(row.events.size());
            for (int i : row.events) {
                running = std::max(running, t.startNs.at(i) + t.durNs.at(i));
                row.maxEnd.append(running);
            }
            m_total = std::max(m_total, running);
        }
        m_rows.erase(std::remove_if(m_rows.begin(), m_rows.end(),
                                    [](const Row &r) { return r.events.isEmpty() && r.engine == EvalProfile::Dma; }),
                     m_rows.end());
    }
    setMinimumHeight(axisHeight + int(std::max<qsizetype>(4, m_rows.size())) * rowHeight + 2);
    showAll();
}

bool TimelineView::hasEvents() const
{
    return m_profile && m_profile->timeline && m_profile->timeline->count() > 0;
}

void TimelineView::showAll()
{
    setVisibleRange(0, m_total > 0 ? m_total : 1);
}

void TimelineView::setVisibleRange(double startNs, double endNs)
{
    m_start = startNs;
    m_end = endNs;
    clampRange();
    update();
}

void TimelineView::clampRange()
{
    const double total = m_total > 0 ? m_total : 1;
    double width = std::clamp(m_end - m_start, 1.0, total * 1.05);
    m_start = std::clamp(m_start, -total * 0.025, total * 1.025 - width);
    m_end = m_start + width;
}

void TimelineView::zoom(double factor, double anchorNs)
{
    if (factor <= 0)
        return;
    m_start = anchorNs - (anchorNs - m_start) / factor;
    m_end = anchorNs + (m_end - anchorNs) / factor;
    clampRange();
    update();
}

void TimelineView::pan(double ns)
{
    m_start += ns;
    m_end += ns;
    clampRange();
    update();
}

QRectF TimelineView::plotRect() const
{
    return QRectF(labelWidth, axisHeight, std::max(1, width() - labelWidth - 4), height() - axisHeight);
}

QRectF TimelineView::rowRect(int row) const
{
    const QRectF plot = plotRect();
    return QRectF(plot.left(), plot.top() + row * rowHeight, plot.width(), rowHeight);
}

double TimelineView::nsToX(double ns) const
{
    const QRectF plot = plotRect();
    return plot.left() + (ns - m_start) / (m_end - m_start) * plot.width();
}

double TimelineView::xToNs(double x) const
{
    const QRectF plot = plotRect();
    return m_start + (x - plot.left()) / plot.width() * (m_end - m_start);
}

QString TimelineView::rowLabel(int row) const
{
    if (row < 0 || row >= m_rows.size())
        return {};
    const Row &r = m_rows.at(row);
    if (r.engine == EvalProfile::Dma)
        return tr("DMA q%1").arg(m_profile->timeline->units.at(r.unit).mid(3));
    if (r.engine < 0) { // an engine outside the five (a device profile's Sync): its own name
        const QString unit = m_profile->timeline->units.value(r.unit);
        return unit.left(1).toUpper() + unit.mid(1);
    }
    return EvalProfile::engineLabel(r.engine);
}

int TimelineView::rowAt(int y) const
{
    const int row = int(std::floor((y - axisHeight) / double(rowHeight)));
    return row >= 0 && row < m_rows.size() ? row : -1;
}

int TimelineView::eventAt(const QPoint &pos) const
{
    const int row = rowAt(pos.y());
    if (row < 0 || pos.x() < labelWidth)
        return -1;
    const EvalProfile::Timeline &t = *m_profile->timeline;
    const Row &r = m_rows.at(row);
    // A bar is at least a pixel wide on screen: accept the events within half a pixel of the cursor.
    const double halfPixel = (m_end - m_start) / plotRect().width() / 2;
    const double at = xToNs(pos.x());
    auto it = std::lower_bound(r.maxEnd.cbegin(), r.maxEnd.cend(), at - halfPixel);
    int best = -1;
    double bestDistance = 1e300;
    for (qsizetype k = it - r.maxEnd.cbegin(); k < r.events.size(); ++k) {
        const int i = r.events.at(k);
        const double s = t.startNs.at(i), e = s + t.durNs.at(i);
        if (s > at + halfPixel)
            break;
        const double distance = at < s ? s - at : at > e ? at - e : 0;
        if (distance <= halfPixel && distance < bestDistance) {
            best = i;
            bestDistance = distance;
        }
    }
    return best;
}

QPoint TimelineView::pointOf(int event) const
{
    if (!hasEvents() || event < 0 || event >= m_profile->timeline->count())
        return {};
    const EvalProfile::Timeline &t = *m_profile->timeline;
    for (int row = 0; row < m_rows.size(); ++row)
        if (m_rows.at(row).unit == t.unit.at(event)) {
            const double mid = t.startNs.at(event) + t.durNs.at(event) / 2;
            return QPoint(int(nsToX(mid)), int(rowRect(row).center().y()));
        }
    return {};
}

QString TimelineView::describe(int event) const
{
    if (!hasEvents() || event < 0 || event >= m_profile->timeline->count())
        return {};
    const EvalProfile::Timeline &t = *m_profile->timeline;
    const QLocale locale;
    return tr("<b>%1</b> on %2<br>shape %3 × %4, %5 bytes<br>%6, from %7<br>line %8")
        .arg(t.ops.value(t.op.at(event)).toHtmlEscaped(), t.units.value(t.unit.at(event)))
        .arg(t.partitions.at(event))
        .arg(locale.toString(t.freeElems.at(event)), locale.toString(t.bytes.at(event)))
        .arg(duration(t.durNs.at(event)), duration(t.startNs.at(event)))
        .arg(t.line.at(event) > 0 ? QString::number(t.line.at(event)) : tr("unknown"));
}

void TimelineView::setSelection(double startNs, double endNs)
{
    m_selStart = std::min(startNs, endNs);
    m_selEnd = std::max(startNs, endNs);
    update();
    Q_EMIT selectionChanged();
}

EvalProfile::EngineTimes TimelineView::selectionBusy() const
{
    EvalProfile::EngineTimes busy{};
    if (!hasEvents() || !hasSelection())
        return busy;
    const EvalProfile::Timeline &t = *m_profile->timeline;
    for (const Row &r : m_rows) {
        const int engine = r.engine;
        if (engine < 0)
            continue;
        auto it = std::lower_bound(r.maxEnd.cbegin(), r.maxEnd.cend(), m_selStart);
        for (qsizetype k = it - r.maxEnd.cbegin(); k < r.events.size(); ++k) {
            const int i = r.events.at(k);
            const double s = t.startNs.at(i), e = s + t.durNs.at(i);
            if (s >= m_selEnd)
                break;
            busy[engine] += std::max(0.0, std::min(e, m_selEnd) - std::max(s, m_selStart));
        }
    }
    return busy;
}

void TimelineView::drawAxis(QPainter &p, const QRectF &plot) const
{
    // Ticks at 1, 2 or 5 times a power of ten, about every 90 pixels.
    const double span = m_end - m_start;
    const double rough = span / std::max(1.0, plot.width() / 90.0);
    const double power = std::pow(10.0, std::floor(std::log10(rough)));
    double step = power;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (power * m >= rough) {
            step = power * m;
            break;
        }
    p.setPen(palette().color(QPalette::WindowText));
    const double first = std::ceil(m_start / step) * step;
    for (double ns = first; ns <= m_end; ns += step) {
        const double x = nsToX(ns);
        p.drawLine(QPointF(x, axisHeight - 5), QPointF(x, axisHeight));
        p.drawText(QRectF(x - 45, 0, 90, axisHeight - 5), Qt::AlignCenter, duration(ns));
    }
}

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!hasEvents()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        const QString why = m_profile ? m_profile->missing.value(QStringLiteral("timeline")) : QString();
        p.drawText(rect().adjusted(12, 0, -12, 0), Qt::AlignCenter | Qt::TextWordWrap,
                   why.isEmpty() ? tr("No timeline: benchmark a kernel (F5) to see its instructions here.")
                                 : tr("No timeline: %1").arg(why));
        return;
    }
    const QRectF plot = plotRect();
    const EvalProfile::Timeline &t = *m_profile->timeline;
    const QColor alternate = palette().color(QPalette::AlternateBase);
    for (int row = 0; row < m_rows.size(); ++row) {
        const QRectF band = rowRect(row);
        if (row % 2)
            p.fillRect(QRectF(0, band.top(), width(), band.height()), alternate);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRectF(6, band.top(), labelWidth - 10, band.height()), Qt::AlignVCenter | Qt::AlignLeft,
                   rowLabel(row));
        const Row &r = m_rows.at(row);
        const QColor color = engineColor(r.engine);
        const double top = band.top() + 3, height = band.height() - 6;
        // Events narrower than a pixel merge into the bar they touch: one fillRect per pixel at most.
        double barStart = -1, barEnd = -1;
        auto flush = [&] {
            if (barEnd > barStart)
                p.fillRect(QRectF(barStart, top, std::max(1.0, barEnd - barStart), height), color);
        };
        auto it = std::lower_bound(r.maxEnd.cbegin(), r.maxEnd.cend(), m_start);
        for (qsizetype k = it - r.maxEnd.cbegin(); k < r.events.size(); ++k) {
            const int i = r.events.at(k);
            const double s = t.startNs.at(i);
            if (s > m_end)
                break;
            const double x0 = std::max(plot.left(), nsToX(s));
            const double x1 = std::min(plot.right(), nsToX(s + t.durNs.at(i)));
            if (x0 <= barEnd + 1.0) {
                barEnd = std::max(barEnd, x1);
                continue;
            }
            flush();
            barStart = x0;
            barEnd = x1;
        }
        flush();
    }
    if (hasSelection()) {
        const double x0 = std::max(plot.left(), nsToX(m_selStart)), x1 = std::min(plot.right(), nsToX(m_selEnd));
        QColor shade = palette().color(QPalette::Highlight);
        shade.setAlpha(60);
        p.fillRect(QRectF(x0, plot.top(), std::max(1.0, x1 - x0), plot.height()), shade);
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(QPointF(labelWidth - 2, axisHeight), QPointF(labelWidth - 2, height()));
    drawAxis(p, plot);
}

void TimelineView::wheelEvent(QWheelEvent *event)
{
    if (!hasEvents())
        return;
    const double steps = event->angleDelta().y() / 120.0;
    if (event->modifiers() & Qt::ShiftModifier)
        pan(-steps * (m_end - m_start) * 0.1);
    else
        zoom(std::pow(1.25, steps), xToNs(event->position().x()));
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent *event)
{
    m_pressPos = event->pos();
    m_pressStart = m_start;
    m_selecting = event->modifiers() & Qt::ShiftModifier;
    m_pressSelAnchor = xToNs(event->pos().x());
    m_dragging = false;
}

void TimelineView::mouseMoveEvent(QMouseEvent *event)
{
    if (!(event->buttons() & Qt::LeftButton))
        return;
    if (!m_dragging && (event->pos() - m_pressPos).manhattanLength() < 4)
        return;
    m_dragging = true;
    if (m_selecting) {
        setSelection(m_pressSelAnchor, xToNs(event->pos().x()));
        return;
    }
    const double nsPerPixel = (m_end - m_start) / plotRect().width();
    const double width = m_end - m_start;
    m_start = m_pressStart - (event->pos().x() - m_pressPos.x()) * nsPerPixel;
    m_end = m_start + width;
    clampRange();
    update();
}

void TimelineView::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_dragging || event->button() != Qt::LeftButton)
        return;
    if (m_selecting) { // a Shift+click clears the selection
        setSelection(0, 0);
        return;
    }
    const int i = eventAt(event->pos());
    if (i >= 0 && m_profile->timeline->line.at(i) > 0)
        Q_EMIT lineActivated(m_profile->timeline->line.at(i));
}

bool TimelineView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int i = hasEvents() ? eventAt(help->pos()) : -1;
        if (i >= 0)
            QToolTip::showText(help->globalPos(), describe(i), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}
