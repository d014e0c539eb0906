#include "estimateview.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {

QTreeWidget *table(QWidget *parent, const QStringList &headers, const QString &tip)
{
    auto *t = new QTreeWidget(parent);
    t->setRootIsDecorated(false);
    t->setHeaderLabels(headers);
    t->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->header()->setStretchLastSection(false);
    t->setToolTip(tip);
    t->setMinimumHeight(60);
    return t;
}

QString percent(double share)
{
    return QStringLiteral("%1 %").arg(share * 100, 0, 'f', 1);
}

void alignRight(QTreeWidgetItem *item, int from)
{
    for (int col = from; col < item->columnCount(); ++col)
        item->setTextAlignment(col, Qt::AlignRight | Qt::AlignVCenter);
}

} // namespace

EstimateView::EstimateView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_headline = new QLabel(this);
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_headline);
    m_engines = table(this, {tr("Engine"), tr("Busy"), tr("Time"), tr("Idle between"), tr("Instructions")},
                      tr("Each engine's busy time as a share of the run (DMA: per queue)"));
    m_engines->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_effects = table(
        this,
        {tr("Share of run"), tr("Engine"), tr("Effect"), tr("Time"), tr("Instructions"), tr("What it is")},
        tr("The modelled effects behind the estimate, largest first (nkisim/perf/explain.py)"));
    m_effects->header()->setStretchLastSection(true);
    layout->addWidget(m_engines);
    layout->addWidget(m_effects, 1);
    setProfile(nullptr);
}

void EstimateView::setProfile(const EvalProfilePtr &profile)
{
    m_engines->clear();
    m_effects->clear();
    m_engines->setVisible(profile && profile->explanation);
    if (!profile || !profile->explanation) {
        m_headline->setText(profile
                                ? tr("No explanation: the %1 profile has none; nkisim's estimates have one.")
                                      .arg(profile->source)
                                : tr("Benchmark a kernel on nkisim to see which modelled effects make up "
                                     "its estimate."));
        return;
    }
    const EstimateExplanation &x = *profile->explanation;
    m_headline->setText(tr("nkisim estimates %1%2, bound by %3. Each effect's share is of the whole run, so "
                           "effects on different engines overlap.")
                            .arg(EstimateExplanation::duration(x.latencyNs),
                                 x.target.isEmpty() ? QString() : tr(" on %1").arg(x.target),
                                 EstimateExplanation::engineLabel(x.bound)));
    const QLocale locale;
    for (const EstimateExplanation::EngineLoad &e : x.engines) {
        auto *item = new QTreeWidgetItem(
            m_engines,
            {EstimateExplanation::engineLabel(e.engine), percent(e.share),
             EstimateExplanation::duration(e.busyNs),
             e.engine == QStringLiteral("dma") ? tr("(16 queues)") : EstimateExplanation::duration(e.stallNs),
             locale.toString(e.instructions)});
        alignRight(item, 1);
    }
    // As tall as its rows (at most five engines), so the effects get the rest.
    const int rows = m_engines->topLevelItemCount();
    const int row = rows ? m_engines->sizeHintForRow(0) : 0;
    m_engines->setFixedHeight(m_engines->header()->sizeHint().height() + rows * row +
                              2 * m_engines->frameWidth() + 2);
    for (const EstimateExplanation::Effect &e : x.effects) {
        auto *item = new QTreeWidgetItem(
            m_effects, {percent(e.share), EstimateExplanation::engineLabel(e.engine),
                        EstimateExplanation::effectLabel(e.effect), EstimateExplanation::duration(e.ns),
                        locale.toString(e.instructions), e.what});
        item->setToolTip(5, e.what);
        item->setTextAlignment(3, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(4, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(0, Qt::AlignRight | Qt::AlignVCenter);
    }
}
