#include "hoststatuswidget.h"

#include "theme.h"

namespace {
Theme::Status status(Host::State state)
{
    switch (state) {
    case Host::State::Ready:
        return Theme::Status::Good;
    case Host::State::Busy:
        return Theme::Status::Busy;
    case Host::State::Connecting:
        return Theme::Status::Warning;
    case Host::State::Lost:
    case Host::State::Failed:
    case Host::State::VersionMismatch:
        return Theme::Status::Bad;
    case Host::State::Offline:
        break;
    }
    return Theme::Status::Idle;
}
} // namespace

HostStatusWidget::HostStatusWidget(QWidget *parent) : QLabel(parent)
{
    setTextFormat(Qt::RichText);
}

void HostStatusWidget::setHosts(const QList<HostConfig> &hosts)
{
    m_names.clear();
    for (const HostConfig &config : hosts) {
        m_names << config.name;
        if (!m_states.contains(config.name)) {
            m_states.insert(config.name, Host::idleState(config));
            if (config.kind == HostConfig::Kind::Local)
                m_details.insert(config.name, tr("this machine, with nkisim; starts on demand"));
        }
    }
    refresh();
}

void HostStatusWidget::setState(const QString &name, Host::State state, const QString &detail)
{
    if (!m_names.contains(name))
        m_names.append(name);
    m_states.insert(name, state);
    m_details.insert(name, detail);
    refresh();
}

void HostStatusWidget::refresh()
{
    QStringList parts, tips;
    for (const QString &name : std::as_const(m_names)) {
        const Host::State state = m_states.value(name, Host::State::Offline);
        parts << name.toHtmlEscaped() + u' ' + Theme::statusHtml(status(state), Host::stateName(state));
        const QString detail = m_details.value(name);
        tips << name + QStringLiteral(": ") + Host::stateName(state) +
                    (detail.isEmpty() ? QString() : QStringLiteral(" — ") + detail);
    }
    setText(tr("Hosts: %1").arg(parts.join(QStringLiteral(" · "))));
    setToolTip(tips.join(u'\n'));
}
