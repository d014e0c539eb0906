#include "runtargetbar.h"

#include "common/appsettings.h"
#include "model/targets.h"

#include <QComboBox>
#include <QLabel>

namespace {

QComboBox *combo(QWidget *parent, const QString &name, const QString &tip)
{
    auto *box = new QComboBox(parent);
    box->setObjectName(name);
    box->setToolTip(tip);
    box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    return box;
}
} // namespace

RunTargetBar::RunTargetBar(QWidget *parent) : QToolBar(tr("Run target"), parent)
{
    setObjectName(QStringLiteral("RunTargetBar"));
    m_host =
        combo(this, QStringLiteral("hostBox"), tr("The host that compiles, checks and times the kernels"));
    m_target =
        combo(this, QStringLiteral("targetBox"), tr("The Trainium generation the kernels are timed for"));
    m_size = combo(this, QStringLiteral("sizeBox"),
                   tr("The task's parameter set: full (the NKIBench sizes) or small (quick to check)"));
    m_target->addItems(Targets::all());
    m_size->addItem(tr("full size"), QStringLiteral("full"));
    m_size->addItem(tr("small size"), QStringLiteral("small"));
    addWidget(new QLabel(tr(" Host "), this));
    addWidget(m_host);
    addWidget(new QLabel(tr(" Target "), this));
    addWidget(m_target);
    addWidget(m_size);
    m_host->addItem(QStringLiteral("local"));
    setHost(AppSettings::runHost.value());
    setTarget(AppSettings::runTarget.value());
    setSize(AppSettings::runSize.value());
    for (QComboBox *box : {m_host, m_target, m_size})
        connect(box, &QComboBox::activated, this, &RunTargetBar::save);
}

void RunTargetBar::setHosts(const QList<HostConfig> &hosts)
{
    const QString current = host();
    m_host->clear();
    for (const HostConfig &h : hosts)
        m_host->addItem(h.name);
    setHost(current);
}

QString RunTargetBar::host() const
{
    return m_host->currentText();
}

QString RunTargetBar::target() const
{
    return m_target->currentText();
}

QString RunTargetBar::size() const
{
    return m_size->currentData().toString();
}

void RunTargetBar::setHost(const QString &name)
{
    const int i = m_host->findText(name);
    m_host->setCurrentIndex(i >= 0 ? i : 0);
}

void RunTargetBar::setTarget(const QString &target)
{
    const int i = m_target->findText(target);
    m_target->setCurrentIndex(i >= 0 ? i : 0);
}

void RunTargetBar::setSize(const QString &size)
{
    const int i = m_size->findData(size);
    m_size->setCurrentIndex(i >= 0 ? i : 0);
}

void RunTargetBar::save() const
{
    AppSettings::runHost.set(host());
    AppSettings::runTarget.set(target());
    AppSettings::runSize.set(size());
}
