"""MQTT, one package for the table and the venue (docs/runtime.md "MQTT", docs/venue.md).

* ``topics``: where a table's messages live (``<prefix>/<table id>/{events,state,status,info}``);
* ``link``: one reconnecting broker connection with its health (``MqttLink``, ``BrokerSettings``);
* ``publisher``: the table's publisher (``MqttPublisher``, ``MqttSettings`` = the ``[mqtt]`` section);
* ``discovery``: the Home Assistant discovery messages a table announces.

Nothing here imports the runtime, the configuration loader or the devices: they are given
settings and callbacks (``tests/runtime/test_mqtt.py`` checks the imports). paho-mqtt is imported
only when a link starts.
"""

from tableref.mqtt.link import BrokerSettings, MqttLink
from tableref.mqtt.publisher import MqttPublisher, MqttSettings
from tableref.mqtt.topics import OFFLINE, ONLINE, MqttError, TableTopics, check_topic, table_id_from_name

__all__ = ["BrokerSettings", "MqttError", "MqttLink", "MqttPublisher", "MqttSettings", "OFFLINE", "ONLINE", "TableTopics",
           "check_topic", "table_id_from_name"]
